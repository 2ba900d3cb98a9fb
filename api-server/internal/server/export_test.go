package server

// Compressed is compressed, for the benchmarks of package server_test.
var Compressed = compressed
