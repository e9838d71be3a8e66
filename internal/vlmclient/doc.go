// Package vlmclient is the one HTTP client vlmrb uses to talk to VLM
// servers speaking the OpenAI wire format (chat completions, embeddings):
// the VLM-RB scorer in vlmprio, ERL-VLM's rater and VLM-RM's embedder in
// vlmreward all send their requests through a Client.
//
// A Client owns everything about a request except its content: retries
// with exponential backoff and equal jitter, Retry-After (delay-seconds
// and HTTP-date), a per-attempt timeout, a bound on requests in flight, a
// consecutive-failure circuit breaker with a half-open probe, an optional
// LRU cache of successful responses keyed by the request's content hash,
// the temperature a request asks for (left out for models that accept
// only the default and dropped once for a model whose server rejects it),
// data-URL encoding of images, response-size caps (package vlmhttp) and
// API keys bound to hosts: a key is sent only to the host it was
// configured for, never to another host a redirect or a second endpoint
// points at. Errors are *Error values with a Kind ("http", "timeout",
// "network", "parse", "input", "breaker", "too_large", "canceled") for
// metrics; keys, Authorization values and URL credentials are redacted
// from every error (package redact).
//
// What the request asks and how an answer is read (prompts, logprobs,
// JSON schemas, embedding layouts) belongs to the callers. A Client is
// safe for concurrent use.
package vlmclient
