// Package vlmhttp holds the transport under vlmrb's one VLM HTTP client
// (internal/vlmclient, used by the VLM-RB scorer in vlmprio, ERL-VLM's
// rater and VLM-RM's embedder in vlmreward): a transport that bounds every
// response (header bytes, body bytes, time to the first response byte) and
// fails with ErrTooLarge instead of buffering an oversized answer. Retries,
// the breaker, keys and error kinds are vlmclient's.
//
// A response body larger than the cap is never read past the cap: the
// connection is closed, so a server that sends gigabytes costs the client
// at most the cap in memory and the time to read it. Safe for concurrent
// use.
package vlmhttp
