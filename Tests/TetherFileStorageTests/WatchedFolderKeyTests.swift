import Foundation
import Testing
import Tether
import TetherFileStorage
import TetherTesting

/// A key made in a folder already watched opens its file as it resolves its path, in one call
/// that refuses links: what it resolves and what it loads must be what the long way gives.
@Suite(.tetherBootstrap(), .timeLimit(.minutes(2))) struct WatchedFolderKeyTests {
  /// Links made after the folder was watched — a file that is one, a folder that became one —
  /// still resolve to their targets, and a file not there yet loads as missing.
  @Test func linksInAWatchedFolderStillResolveToTheirTargets() async throws {
    try await withTemporaryDirectory { folder in
      let watched = folder.appending(path: "f")
      try FileManager.default.createDirectory(at: watched, withIntermediateDirectories: true)
      @Shared(.fileStorage(watched.appending(path: "plain.json"))) var plain = 0

      let target = watched.appending(path: "target.json")
      try Data("3".utf8).write(to: target)
      let link = watched.appending(path: "link.json")
      try FileManager.default.createSymbolicLink(
        atPath: link.path, withDestinationPath: target.path)
      #expect(fileKey(link).id.path == target.path)
      @Shared(.fileStorage(link)) var throughLink = 0
      #expect(throughLink == 3)
      $throughLink.withLock { $0 = 4 }
      try await $throughLink.save()
      #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == target.path)
      #expect(text(target) == "4")

      // A watched folder moved away, a link to it put in its place.
      let moved = folder.appending(path: "g")
      try FileManager.default.moveItem(at: watched, to: moved)
      try FileManager.default.createSymbolicLink(
        atPath: watched.path, withDestinationPath: moved.path)
      #expect(fileKey(watched.appending(path: "n.json")).id.path == moved.path + "/n.json")

      let later = moved.appending(path: "later.json")
      @Shared(.fileStorage(later)) var notYet = -1
      #expect(notYet == -1 && $notYet.loadError == nil)
      try Data("5".utf8).write(to: later)
      await expectEventually(timeout: .seconds(30)) { notYet == 5 }
      withExtendedLifetime(plain) {}
    }
  }

  /// A key made, then its file edited, then the key's holder started: the holder starts from
  /// the edit, not from what the key read when it was made.
  @Test func aKeyStartedAfterAnEditLoadsTheEdit() async throws {
    try await withTemporaryDirectory { folder in
      let late = folder.appending(path: "late.json")
      try Data("1".utf8).write(to: late)
      let marker = folder.appending(path: "marker.json")
      @Shared(.fileStorage(marker)) var seen = 0

      let key: FileStorageKey<Int> = .fileStorage(late)
      try Data("2".utf8).write(to: late, options: .atomic)
      // Events are taken up in order: once the marker's edit is seen, so is the file's.
      try Data("9".utf8).write(to: marker, options: .atomic)
      await expectEventually(timeout: .seconds(30)) { seen == 9 }

      let started = Shared(wrappedValue: 0, key)
      #expect(started.wrappedValue == 2)
    }
  }
}

private func fileKey(_ url: URL) -> FileStorageKey<Int> { .fileStorage(url) }
