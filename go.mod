module github.com/weftlab/weft

go 1.24.0

require (
	github.com/bits-and-blooms/bitset v1.29.0
	pgregory.net/rapid v1.3.0
)
