module github.com/weftlab/weft

go 1.24.0

require (
	github.com/bits-and-blooms/bitset v1.29.0
	github.com/dgraph-io/ristretto/v2 v2.4.2
	pgregory.net/rapid v1.3.0
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/dustin/go-humanize v1.0.1 // indirect
	golang.org/x/sys v0.36.0 // indirect
)
