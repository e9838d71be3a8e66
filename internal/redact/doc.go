// Package redact is the one place where secrets are masked before text
// leaves the process: API keys, Authorization header values, the
// user-info of URLs and the values of key-like query parameters.
//
// String and Error mask what they are told (the configured keys) and what
// looks like a credential whatever it is (a "Bearer …" token, "sk-…"
// keys, user:pass@ in a URL, ?api_key=… and friends). StripURL removes
// credentials from a base URL so it can be stored in config files and
// checkpoints. Writer masks everything written through it; the CLI wraps
// its stdout and stderr in one, so no code path can print a key.
//
// All functions are safe for concurrent use; a Writer is as safe as the
// writer it wraps.
package redact
