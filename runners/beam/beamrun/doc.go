// Package beamrun explores the units of a weft search on Apache Beam: a
// por.UnitRunner that runs one Beam pipeline per batch of units the search
// hands it (a round), on prism in this process or on Flink, Spark or
// Dataflow.
//
// A round is Create(units), a reshuffle that spreads them over the
// workers, a ParDo that explores each unit with the system registered
// under Options.System, and textio.Write of the results, which the driver
// reads back from Options.Output. A unit's result read twice (a retried
// bundle written again) is counted once; the search takes the results in
// its own order, so its result is the single-machine search's whatever
// the engine does (see the por package documentation, "Units explored
// elsewhere").
//
// A Go pipeline's workers run the driver's binary, so the systems are
// registered by name in the binary, before beam.Init, which a worker
// never returns from:
//
//	func main() {
//		beamrun.RegisterCatalog() // weft's bundled models, as "lastzero-12"
//		flag.Parse()
//		beam.Init()
//		r, err := beamrun.New(beamrun.Options{System: "lastzero-12", Output: "gs://bucket/weft", Execute: beamx.RunWithMetrics})
//		...
//		opt := por.Options{Runner: r}
//		res, err := target.Search(ctx, "odpor", opt)
//	}
//
// Runner.Load tells what was shipped (bytes a unit and a result), how many
// rounds the search took, and where and how long each unit ran. The
// module's README has the figures measured on prism.
//
// The package name is not beam, so that it does not hide the SDK's.
package beamrun
