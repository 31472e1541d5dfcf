//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package offheap

import "syscall"

// mapMemory maps size bytes of private, zeroed memory that the system
// commits page by page as it is written, or returns nil.
func mapMemory(size int) []byte {
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON|mapNoReserve)
	if err != nil {
		return nil
	}
	return mem
}

// unmap unmaps mem, a mapping of mapMemory's.
func unmap(mem []byte) {
	if mem != nil {
		_ = syscall.Munmap(mem)
	}
}
