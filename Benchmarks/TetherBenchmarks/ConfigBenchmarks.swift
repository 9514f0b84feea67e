import Benchmark
import Foundation
import Tether
import TetherDefaults
import TetherFileStorage
import TetherInMemory

/// Bootstrapping from a config that maps 1,000 keys (each with its own section), against
/// splitting the same text into a dictionary by hand: the floor of reading it (benchmark 9).
func configBenchmarks() {
  let keys = 1_000
  var text = "[keys]\n"
  for key in 0..<keys { text += "key\(key) = \(["file", "defaults", "memory"][key % 3])\n" }
  text += "\n[strategy.file]\ndirectory = /tmp/tether-bench-config\n"
  for key in stride(from: 0, to: keys, by: 3) { text += "\n[key.key\(key)]\npath = k\(key).json\n" }
  let configuration = Benchmark.Configuration(
    metrics: [.wallClock], timeUnits: .microseconds, warmupIterations: 3,
    maxDuration: .seconds(3), maxIterations: 200)

  Benchmark("config.tether", configuration: configuration) { _ in
    try await TetherSystem.withBootstrap(
      configuration: .string(text),
      strategies: [FileStorageStrategy.self, DefaultsStrategy.self, InMemoryStrategy.self]
    ) {}
  }
  Benchmark("config.byhand", configuration: configuration) { _ in
    var sections: [String: [String: String]] = [:]
    var section = ""
    for line in text.split(separator: "\n") {
      if line.hasPrefix("[") {
        section = String(line.dropFirst().dropLast())
      } else if let equals = line.firstIndex(of: "=") {
        let name = line[..<equals].trimmingCharacters(in: .whitespaces)
        sections[section, default: [:]][name] = line[line.index(after: equals)...]
          .trimmingCharacters(in: .whitespaces)
      }
    }
    blackHole(sections)
  }
}
