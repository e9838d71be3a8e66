// Package embedtest runs a local HTTP server that speaks the OpenAI
// /v1/embeddings wire format for text and, in vLLM's multimodal form, for
// images, so the VLM-RM client and the training loop are tested over real
// HTTP without model weights. Its embeddings are simple and exact: an
// image's is its summed 16-bit RGB, a text's counts the words red, green
// and blue (plus 0.1 each).
package embedtest
