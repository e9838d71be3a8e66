package vlmclient

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/png"
)

// DataURL returns data as a base64 data URL of the given MIME type
// ("data:image/png;base64,…"), the form every OpenAI-compatible server
// accepts for inline images and videos.
func DataURL(mime string, data []byte) string {
	return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data)
}

// PNGDataURL encodes img as a PNG data URL.
func PNGDataURL(img image.Image) (string, error) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return "", fmt.Errorf("encoding PNG: %w", err)
	}
	return DataURL("image/png", buf.Bytes()), nil
}
