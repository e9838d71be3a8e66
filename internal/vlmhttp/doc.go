// Package vlmhttp holds what every VLM HTTP client of vlmrb shares (the
// VLM-RB scorer in vlmprio, ERL-VLM's rater and VLM-RM's embedder in
// vlmreward): a transport that bounds every response (header bytes, body
// bytes, time to the first response byte) and fails with ErrTooLarge
// instead of buffering an oversized answer, and the redaction of keys and
// URL credentials in the errors the clients return.
//
// A response body larger than the cap is never read past the cap: the
// connection is closed, so a server that sends gigabytes costs the client
// at most the cap in memory and the time to read it. Safe for concurrent
// use.
package vlmhttp
