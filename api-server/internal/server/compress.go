package server

// DESIGN §4c, compression: bodies of 1 KiB or more are compressed when the
// client asks (Accept-Encoding: zstd preferred, then gzip), by
// klauspost/compress/gzhttp around the whole handler. gzhttp never
// compresses a HEAD answer or a body-less one (304), adds
// Vary: Accept-Encoding, and leaves the ETag as the handler set it: the
// API's tags are weak (conditional.go), and a weak tag names the same data
// in every encoding (RFC 9110 §8.8.3), so no suffix is added and none is
// dropped.

import (
	"net/http"

	"github.com/klauspost/compress/gzhttp"
	"github.com/klauspost/compress/zstd"
)

// CompressMinSize is the least body, in bytes, that is compressed.
const CompressMinSize = 1 << 10

// compressLevel is gzip's level: 1 (klauspost's fastest Huffman+LZ) is a
// fifth of the default level's CPU on a page and within a few per cent of
// its size (BenchmarkCompress).
const compressLevel = 1

// compressed wraps h in gzhttp with the API's settings.
func compressed(h http.Handler) (http.Handler, error) {
	wrap, err := gzhttp.NewWrapper(
		gzhttp.MinSize(CompressMinSize),
		gzhttp.CompressionLevel(compressLevel),
		gzhttp.EnableZstd(true),
		gzhttp.PreferZstd(true),
		gzhttp.ZstdCompressionLevel(int(zstd.SpeedFastest)),
		gzhttp.ContentTypes([]string{"application/json"}),
	)
	if err != nil {
		return nil, err
	}
	return wrap(h), nil
}
