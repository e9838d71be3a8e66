package vlmclient

import (
	"container/list"
	"sync"
)

// lru is a mutex-guarded LRU cache of response bodies by content hash.
type lru struct {
	mu  sync.Mutex
	cap int
	ll  *list.List
	m   map[[32]byte]*list.Element
}

type lruEntry struct {
	key [32]byte
	val []byte
}

func newLRU(n int) *lru { return &lru{cap: n, ll: list.New(), m: make(map[[32]byte]*list.Element)} }

func (c *lru) get(k [32]byte) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[k]; ok {
		c.ll.MoveToFront(e)
		return e.Value.(*lruEntry).val, true
	}
	return nil, false
}

func (c *lru) put(k [32]byte, v []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[k]; ok {
		e.Value.(*lruEntry).val = v
		c.ll.MoveToFront(e)
		return
	}
	c.m[k] = c.ll.PushFront(&lruEntry{k, v})
	if c.ll.Len() > c.cap {
		old := c.ll.Back()
		c.ll.Remove(old)
		delete(c.m, old.Value.(*lruEntry).key)
	}
}
