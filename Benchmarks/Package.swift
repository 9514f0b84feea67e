// swift-tools-version: 6.2
import Foundation
import PackageDescription

// The Tether package this folder sits in. A path dependency is identified by its folder's name,
// which differs between checkouts, so it is read from here.
let tether = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .deletingLastPathComponent()

let package = Package(
  name: "TetherBenchmarks",
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(path: tether.path),
    .package(
      url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
  ],
  targets: [
    .executableTarget(
      name: "TetherBenchmarks",
      dependencies: [
        .product(name: "Benchmark", package: "benchmark"),
        .product(name: "Tether", package: tether.lastPathComponent),
        .product(name: "TetherInMemory", package: tether.lastPathComponent),
        .product(name: "TetherFileStorage", package: tether.lastPathComponent),
        .product(name: "TetherDefaults", package: tether.lastPathComponent),
        .product(name: "TetherPostgres", package: tether.lastPathComponent),
        .product(name: "PostgresNIO", package: "postgres-nio"),
      ],
      path: "TetherBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    )
  ],
  swiftLanguageModes: [.v6]
)
