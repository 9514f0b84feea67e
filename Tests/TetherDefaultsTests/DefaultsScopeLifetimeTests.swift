import Foundation
import Testing
import Tether
@_spi(Benchmarking) import TetherDefaults
import TetherTestHelperSupport
import TetherTesting
import TetherWatcher

@Suite(.timeLimit(.minutes(5))) struct DefaultsScopeLifetimeTests {
  /// Issue 35: every `withBootstrap` scope that touched a defaults key was kept for the life of
  /// the process (about 9 KB each, the registry, the files and their writers), its defaults
  /// files holding the scope that held them. A finished scope goes, with its files, the file's
  /// watch and its entries among the pending writes, and its pending write is on disk. A file's
  /// state went with neither: it kept the waiter of its key's changes, which kept it.
  @Test func aFinishedScopeGoesWithItsFilesItsWatchAndItsPendingWrites() async throws {
    var remains: [DefaultsScopeRemains] = []
    for _ in 0..<Soak.size(ci: 300, soak: 1_000) {
      try await withTemporaryDirectory { folder in
        let url = folder.appending(path: "defaults.ini")
        remains.append(
          try await defaultsBootstrap(folder, throttle: "1m") {
            @Shared(.registered("count")) var count = 0
            $count.withLock { $0 += 1 }
            try await $count.save()
            // Within the window: pending until the scope's end flushes it.
            $count.withLock { $0 += 1 }
            return DefaultsScopeRemains(
              scope: TetherScope.current, files: DefaultsProbe.scopeFiles,
              state: try #require(DefaultsProbe.fileStates.first),
              path: url.resolvingSymlinksInPath().path)
          })
        #expect(contents(url) == "count = 2\n", "the write pending as the scope ended is flushed")
      }
    }
    // Released on the threads that drop them last (a delivery, a writer's queue): waited for.
    await expectEventually(timeout: .seconds(30)) { remains.allSatisfy(\.isGone) }
    #expect(remains.count { $0.scope != nil } == 0, "scopes kept")
    #expect(remains.count { $0.files != nil } == 0, "defaults files kept")
    #expect(remains.count { $0.state != nil } == 0, "files' states kept")
    #expect(remains.count { $0.pendingWrites > 0 } == 0, "pending writes kept registered")
    #expect(remains.count { $0.isWatched } == 0, "files still watched")
  }
}

/// What a finished scope leaves that must go with it: the scope and its defaults files, held
/// weakly; what the pending writes and the watcher keep of it, looked up by its id and its file.
struct DefaultsScopeRemains {
  weak var scope: TetherScope?
  weak var files: AnyObject?
  weak var state: AnyObject?
  let id: TetherScope.ID
  let path: String

  init(scope: TetherScope, files: AnyObject, state: AnyObject, path: String) {
    self.scope = scope
    self.files = files
    self.state = state
    self.id = scope.id
    self.path = path
  }

  var pendingWrites: Int { PendingWritesRegistry.registered(in: id) }
  var isWatched: Bool { FileWatcher.shared.isWatching(path) }
  var isGone: Bool {
    scope == nil && files == nil && state == nil && pendingWrites == 0 && !isWatched
  }
}
