//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package offheap

func mapMemory(int) []byte { return nil }

func unmap([]byte) {}

func adviseHuge([]byte) {}
