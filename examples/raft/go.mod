module github.com/weftlab/weft/examples/raft

go 1.26

require (
	github.com/weftlab/weft v0.0.0
	go.etcd.io/raft/v3 v3.7.0
	google.golang.org/protobuf v1.36.11
)

require github.com/bits-and-blooms/bitset v1.29.0 // indirect

replace github.com/weftlab/weft => ../..
