// Package vlmclienttest is the one fault-test table every VLM client of
// vlmrb runs (vlmprio's scorer, vlmreward's ERL-VLM rater and VLM-RM
// embedder, and internal/vlmclient itself). Run starts real httptest
// servers that answer in the exact OpenAI wire format (chat completions
// with logprobs, embeddings; bodies in testdata/ derived from the official
// API examples) and misbehave in the ways real servers and proxies do: 429
// with Retry-After in seconds and as an HTTP date, 5xx then success,
// timeouts, bodies cut short, HTML error pages, oversized answers, a key
// echoed in a 401, a redirect to another host. Each row asserts the
// behaviour the specification asks for: how many requests were made, that
// announced delays were honoured and bounded, the final error's
// vlmclient.Kind, that no key appears in an error, and that the key never
// reaches a host it was not configured for.
package vlmclienttest
