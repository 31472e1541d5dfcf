package offheap

import "syscall"

// mapNoReserve: what a region reserves beyond what is written counts
// against no overcommit limit.
const mapNoReserve = syscall.MAP_NORESERVE

// adviseHuge asks for transparent huge pages in mem (where the system
// gives them only on request, as by default on many distributions).
func adviseHuge(mem []byte) {
	_ = syscall.Madvise(mem, syscall.MADV_HUGEPAGE)
}
