import Benchmark

// Every figure of DESIGN §11, each next to a baseline measured in the same run;
// `make bench` turns them into one table (report.py).
let benchmarks: @Sendable () -> Void = {
  coreBenchmarks()
  throttleBenchmarks()
  latencyBenchmarks()
  watchBenchmarks()
  saveBenchmarks()
  transactionBenchmarks()
  defaultsBenchmarks()
  configBenchmarks()
  postgresBenchmarks()
  slowPathBenchmarks()
  pairedBenchmarks()
  contentionBenchmarks()
}
