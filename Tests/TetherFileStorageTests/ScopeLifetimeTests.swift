import Foundation
import Testing
import Tether
@_spi(Benchmarking) import TetherFileStorage
import TetherTestHelperSupport
import TetherTesting
import TetherWatcher

@Suite(.timeLimit(.minutes(5))) struct ScopeLifetimeTests {
  /// Issue 35: every `withBootstrap` scope that touched a file key was kept for the life of the
  /// process (about 9 KB each, the registry, the stores and their writers), its stores holding
  /// the scope that held them; each test has a scope, so each leaked its own. A finished scope
  /// goes, with its stores, its file's watch and its entries among the pending writes, and its
  /// pending write is on disk. A store's state then stayed for the rest of its throttle window,
  /// kept by the writer's timer.
  @Test func aFinishedScopeGoesWithItsStoresItsWatchAndItsPendingWrites() async throws {
    var remains: [ScopeRemains] = []
    for _ in 0..<Soak.size(ci: 300, soak: 1_000) {
      try await withTemporaryDirectory { folder in
        let url = folder.appending(path: "count.json")
        remains.append(
          try await fileBootstrap(folder, throttle: "1m") {
            @Shared(.registered("count")) var count = 0
            $count.withLock { $0 += 1 }
            try await $count.save()
            // Within the window: pending until the scope's end flushes it.
            $count.withLock { $0 += 1 }
            return ScopeRemains(
              scope: TetherScope.current, stores: FileStorageProbe.scopeStores,
              state: try #require(FileStorageProbe.storeStates.first),
              path: try registeredFileKey("count").url.path)
          })
        #expect(text(url) == "2", "the write pending as the scope ended is flushed")
      }
    }
    // Released on the threads that drop them last (a delivery, a writer's queue): waited for.
    await expectEventually(timeout: .seconds(30)) { remains.allSatisfy(\.isGone) }
    #expect(remains.count { $0.scope != nil } == 0, "scopes kept")
    #expect(remains.count { $0.stores != nil } == 0, "stores kept")
    #expect(remains.count { $0.state != nil } == 0, "stores' states kept")
    #expect(remains.count { $0.pendingWrites > 0 } == 0, "pending writes kept registered")
    #expect(remains.count { $0.isWatched } == 0, "files still watched")
  }
}

/// What a finished scope leaves that must go with it: the scope and its stores, held weakly;
/// what the pending writes and the watcher keep of it, looked up by its id and its file.
struct ScopeRemains {
  weak var scope: TetherScope?
  weak var stores: AnyObject?
  weak var state: AnyObject?
  let id: TetherScope.ID
  let path: String

  init(scope: TetherScope, stores: AnyObject, state: AnyObject, path: String) {
    self.scope = scope
    self.stores = stores
    self.state = state
    self.id = scope.id
    self.path = path
  }

  var pendingWrites: Int { PendingWritesRegistry.registered(in: id) }
  var isWatched: Bool { FileWatcher.shared.isWatching(path) }
  var isGone: Bool {
    scope == nil && stores == nil && state == nil && pendingWrites == 0 && !isWatched
  }
}
