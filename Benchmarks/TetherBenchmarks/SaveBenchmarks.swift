import Benchmark
import Foundation
import Tether
import TetherFileStorage

/// A value of about 1 MB of JSON.
struct Catalog: Codable, Sendable, Equatable {
  struct Item: Codable, Sendable, Equatable {
    var id: Int
    var name: String
    var tags: [String]
    var price: Double
  }
  var items: [Item]

  static let megabyte = Catalog(
    items: (0..<9_000).map { index in
      Item(
        id: index, name: "item number \(index) of the catalog",
        tags: ["tag\(index % 7)", "group\(index % 13)"], price: Double(index) * 1.25)
    })
}

/// Saving a 1 MB value now, against encoding it with the key's `JSONEncoder` and writing it
/// atomically by hand: a temporary file, `fsync`, `rename` — what `durability = atomic` promises (benchmark 7).
func saveBenchmarks() {
  let configuration = Benchmark.Configuration(
    metrics: [.wallClock], timeUnits: .microseconds, warmupIterations: 2,
    maxDuration: .seconds(4), maxIterations: 40)

  Benchmark("save1mb.tether", configuration: configuration) { benchmark in
    let url = scratchFolder("save-tether").appending(path: "catalog.json")
    let shared = Shared(wrappedValue: Catalog.megabyte, .fileStorage(url))
    try await shared.save()
    benchmark.startMeasurement()
    try await shared.save()
    benchmark.stopMeasurement()
  }

  Benchmark("save1mb.byhand", configuration: configuration) { benchmark in
    let url = scratchFolder("save-byhand").appending(path: "catalog.json")
    let value = Catalog.megabyte
    // The same bytes as the key writes (its default encoder, `JSONEncoder()`), and like the
    // measured save above, the measured write replaces a file of the same size.
    let encoder = JSONEncoder()
    try writeAtomically(encoder.encode(value), to: url)
    benchmark.startMeasurement()
    try writeAtomically(encoder.encode(value), to: url)
    benchmark.stopMeasurement()
  }
}

/// What an app would write itself: temporary file, flush to disk, rename over.
func writeAtomically(_ data: Data, to url: URL) throws {
  let temporary = url.deletingLastPathComponent().appending(path: ".\(url.lastPathComponent).tmp")
  guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
    throw BenchmarkFailure("cannot create \(temporary.path)")
  }
  let handle = try FileHandle(forWritingTo: temporary)
  try handle.write(contentsOf: data)
  try handle.synchronize()
  try handle.close()
  guard rename(temporary.path, url.path) == 0 else {
    throw BenchmarkFailure("cannot rename \(temporary.path) over \(url.path)")
  }
}
