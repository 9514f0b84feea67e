// swift-tools-version: 6.2
import PackageDescription

let swiftSettings: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny"),
  .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
  name: "Tether",
  platforms: [.macOS(.v15)],
  products: [
    .library(name: "Tether", targets: ["Tether"]),
    .library(name: "TetherInMemory", targets: ["TetherInMemory"]),
    .library(name: "TetherFileStorage", targets: ["TetherFileStorage"]),
    .library(name: "TetherDefaults", targets: ["TetherDefaults"]),
    .library(name: "TetherEnvironment", targets: ["TetherEnvironment"]),
    .library(name: "TetherPostgres", targets: ["TetherPostgres"]),
    .library(name: "TetherTesting", targets: ["TetherTesting"]),
    .library(name: "TetherCommandLine", targets: ["TetherCommandLine"]),
    .library(name: "TetherServiceLifecycle", targets: ["TetherServiceLifecycle"]),
    .executable(name: "tether", targets: ["tether"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    // `make docs`: `swift package generate-documentation`.
    .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
  ],
  targets: [
    // The lock every module's shared state is kept under (see UnfairMutex.swift for why not
    // Swift's Mutex).
    .target(
      name: "TetherLocking",
      dependencies: ["CTetherLinux"],
      swiftSettings: swiftSettings
    ),
    // The process's logger, as every module of the package reaches it: the one an app hands
    // `TetherSystem.bootstrap`, or swift-log's default for each module's label.
    .target(
      name: "TetherLogging",
      dependencies: ["TetherLocking", .product(name: "Logging", package: "swift-log")],
      swiftSettings: swiftSettings
    ),
    .target(
      name: "Tether",
      dependencies: [
        "TetherLocking", "TetherLogging", .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: swiftSettings
    ),
    // Linux system calls Swift's Glibc module does not declare.
    .systemLibrary(name: "CTetherLinux", path: "Sources/CTetherLinux"),
    .systemLibrary(
      name: "CInotifyTools",
      path: "Sources/CInotifyTools",
      providers: [.apt(["libinotifytools0-dev"])]
    ),
    // Files as the strategies and the watcher use them: atomic replacement, resolved paths,
    // reading whole, system calls that retry EINTR. Knows nothing of watching.
    .target(
      name: "TetherFiles",
      dependencies: [
        "CTetherLinux", "TetherLocking", "TetherLogging",
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: swiftSettings
    ),
    .target(
      name: "TetherWatcher",
      dependencies: [
        "CInotifyTools", "CTetherLinux", "TetherFiles", "TetherLocking", "TetherLogging",
        .product(name: "Logging", package: "swift-log"),
      ],
      exclude: ["README.md"],
      swiftSettings: swiftSettings
    ),
    .target(
      name: "TetherInMemory",
      dependencies: ["Tether", "TetherLocking"],
      path: "Plugins/InMemory",
      swiftSettings: swiftSettings
    ),
    .target(
      name: "TetherFileStorage",
      dependencies: [
        "Tether", "TetherFiles", "TetherLocking", "TetherWatcher", "TetherLogging",
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Plugins/FileStorage",
      swiftSettings: swiftSettings
    ),
    .target(
      name: "TetherDefaults",
      dependencies: [
        "Tether", "TetherFiles", "TetherLocking", "TetherWatcher", "TetherLogging",
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Plugins/Defaults",
      swiftSettings: swiftSettings
    ),
    // Read-only: environment variables, read with the defaults strategy's literal forms.
    .target(
      name: "TetherEnvironment",
      dependencies: ["Tether", "TetherLocking"],
      path: "Plugins/Environment",
      swiftSettings: swiftSettings
    ),
    // Keys shared across hosts: a PostgreSQL table, changes announced with LISTEN/NOTIFY.
    .target(
      name: "TetherPostgres",
      dependencies: [
        "Tether", "TetherLocking", "TetherLogging",
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Plugins/Postgres",
      swiftSettings: swiftSettings
    ),
    .target(
      name: "TetherTesting",
      dependencies: [
        "Tether", "TetherInMemory", "TetherLocking", "TetherLogging",
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: swiftSettings
    ),
    // Tether as a service of a swift-service-lifecycle `ServiceGroup`: pending writes flushed
    // and connections closed on graceful shutdown.
    .target(
      name: "TetherServiceLifecycle",
      dependencies: [
        "Tether", .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      ],
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "TetherTests",
      dependencies: ["Tether", "TetherInMemory", "TetherTesting", "TetherTestHelperSupport"],
      swiftSettings: swiftSettings
    ),
    // The whole tool as a library, for apps' own settings commands.
    .target(
      name: "TetherCommandLine",
      dependencies: [
        "Tether", "TetherInMemory", "TetherFileStorage", "TetherDefaults", "TetherLocking",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      swiftSettings: swiftSettings
    ),
    .executableTarget(
      name: "tether",
      dependencies: [
        "TetherCommandLine", "TetherInMemory", "TetherFileStorage", "TetherDefaults",
        "TetherEnvironment", "TetherPostgres",
      ],
      swiftSettings: swiftSettings
    ),
    // The helper's commands and reports, and how a test runs it: shared by the helper and the
    // test targets that run it.
    .target(
      name: "TetherTestHelperSupport",
      dependencies: ["TetherTesting"],
      path: "Tests/TetherTestHelperSupport",
      swiftSettings: swiftSettings
    ),
    .executableTarget(
      name: "tether-test-helper",
      dependencies: [
        "TetherFiles", "TetherWatcher", "TetherFileStorage", "TetherDefaults", "TetherPostgres",
        "TetherServiceLifecycle", "TetherTestHelperSupport",
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Tests/TetherTestHelper",
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "TetherLockingTests",
      dependencies: ["TetherLocking", "TetherTesting"],
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "TetherFilesTests",
      dependencies: ["TetherFiles", "TetherTesting"],
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "TetherWatcherTests",
      dependencies: [
        "TetherWatcher", "TetherFiles", "TetherTesting", "tether-test-helper",
        "TetherTestHelperSupport",
      ],
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "TetherFileStorageTests",
      dependencies: [
        "TetherFileStorage", "TetherFiles", "TetherWatcher", "TetherTesting", "tether-test-helper",
        "TetherTestHelperSupport",
      ],
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "TetherDefaultsTests",
      dependencies: [
        "TetherDefaults", "TetherFiles", "TetherWatcher", "TetherTesting", "tether-test-helper",
        "TetherTestHelperSupport",
      ],
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "TetherCLITests",
      dependencies: [
        "Tether", "TetherTesting", "TetherDefaults", "TetherFileStorage", "TetherInMemory",
        "TetherCommandLine", "tether",
      ],
      swiftSettings: swiftSettings
    ),
    // The conformance suite against a strategy broken one way at a time.
    .testTarget(
      name: "TetherConformanceTests",
      dependencies: ["Tether", "TetherTesting", "TetherTestHelperSupport"],
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "TetherEnvironmentTests",
      dependencies: ["Tether", "TetherEnvironment", "TetherTesting"],
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "TetherPostgresTests",
      dependencies: [
        "Tether", "TetherPostgres", "TetherTesting", "tether-test-helper",
        "TetherTestHelperSupport", "tether",
      ],
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "TetherServiceLifecycleTests",
      dependencies: [
        "Tether", "TetherServiceLifecycle", "TetherTesting", "tether-test-helper",
        "TetherTestHelperSupport",
      ],
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "TetherInMemoryTests",
      dependencies: ["Tether", "TetherInMemory", "TetherTesting"],
      swiftSettings: swiftSettings
    ),
  ],
  swiftLanguageModes: [.v6]
)
