package main

import (
	"io"

	"github.com/weftlab/weft/hb"
	"github.com/weftlab/weft/ts"
)

// writeDOT draws the happens-before graph of a trace.
func writeDOT(w io.Writer, tr ts.Trace, names ts.ObjNamer, _ string) error {
	return hb.WriteDot(w, tr, names)
}
