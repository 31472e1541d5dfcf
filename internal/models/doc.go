// Package models holds the systems bundled with weft: the fixtures of the
// papers weft implements and the classic benchmarks of the field. Each model
// documents where it comes from and the facts it must show; tests assert them
// under ts.Explore.
package models
