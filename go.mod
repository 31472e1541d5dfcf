module github.com/weftlab/weft

go 1.24
