// swift-tools-version: 6.2
import Foundation
import PackageDescription

// The Tether package this example sits in, two folders up. A path dependency is known by its
// folder's name, which differs between checkouts, so the name is read from here.
let tether = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

let swiftSettings: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny"),
  .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
  name: "Notes",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "notes", targets: ["notes"])
  ],
  dependencies: [
    .package(path: "../..")
  ],
  targets: [
    // The app's own strategy: a folder of one-value files. A module of its own, as a strategy
    // is in Tether (Plugins/), so that the conformance suite can test it.
    .target(
      name: "EnvDir",
      dependencies: [.product(name: "Tether", package: tether)],
      swiftSettings: swiftSettings
    ),
    .executableTarget(
      name: "notes",
      dependencies: [
        "EnvDir",
        .product(name: "Tether", package: tether),
        .product(name: "TetherDefaults", package: tether),
        .product(name: "TetherFileStorage", package: tether),
        .product(name: "TetherCommandLine", package: tether),
      ],
      swiftSettings: swiftSettings
    ),
    // Drives the built `notes` binary end to end, and runs the strategy conformance suite.
    .testTarget(
      name: "NotesTests",
      dependencies: [
        "EnvDir", "notes",
        .product(name: "Tether", package: tether),
        .product(name: "TetherTesting", package: tether),
      ],
      swiftSettings: swiftSettings
    ),
  ],
  swiftLanguageModes: [.v6]
)
