public import Foundation
public import Testing
import Tether

/// Runs `body` with a new, empty folder that is removed afterwards.
///
/// The current scope's pending writes are flushed before the folder goes, so a throttled
/// trailing write cannot land in it later (which would recreate it).
///
/// ```swift
/// try await withTemporaryDirectory { folder in
///   try await TetherSystem.withBootstrap(
///     configuration: .string("[strategy.file]\ndirectory = \(folder.path)\n[keys]\n* = file"),
///     strategies: [FileStorageStrategy.self]
///   ) { … }
/// }
/// ```
@discardableResult
public func withTemporaryDirectory<R>(
  isolation: isolated (any Actor)? = #isolation,
  sourceLocation: SourceLocation = #_sourceLocation,
  _ body: (URL) async throws -> R
) async throws -> R {
  try await withTemporaryDirectory(
    under: URL(filePath: NSTemporaryDirectory(), directoryHint: .isDirectory),
    sourceLocation: sourceLocation, body)
}

/// ``withTemporaryDirectory(isolation:sourceLocation:_:)`` in `parent`: `/dev/shm` for a test
/// whose thousands of writes are about their events, not the disk (each `fsync` is free there).
@discardableResult
package func withTemporaryDirectory<R>(
  under parent: URL,
  isolation: isolated (any Actor)? = #isolation,
  sourceLocation: SourceLocation = #_sourceLocation,
  _ body: (URL) async throws -> R
) async throws -> R {
  let folder = parent.appending(path: "tether-\(UUID().uuidString)", directoryHint: .isDirectory)
  try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  let result: Result<R, any Error>
  do {
    result = .success(try await body(folder))
  } catch {
    result = .failure(error)
  }
  await TetherSystem.flush()
  do {
    try FileManager.default.removeItem(at: folder)
  } catch {
    Issue.record("could not remove \(folder.path): \(error)", sourceLocation: sourceLocation)
  }
  return try result.get()
}
