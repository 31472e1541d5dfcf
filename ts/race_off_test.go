//go:build !race

package ts_test

const raceEnabled = false
