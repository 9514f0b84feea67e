import Foundation
import Glibc
import Testing
import Tether
import TetherDefaults
import TetherFiles
import TetherTestHelperSupport
import TetherTesting

/// A burst of `withLock` changes of one key: while its change waits for the trailing write, each
/// newer value takes the place of the last; once the writer has taken that change, the next
/// value is a change of its own. Never is a value kept where no write will read it.
@Suite(.tetherBootstrap(), .timeLimit(.minutes(2))) struct DefaultsBurstTests {
  /// The write of `k = 1` takes its change, then waits for the file's lock, which the test
  /// holds: `k = 2`, made then, is not in that write, and reaches the file by the next one.
  @Test func aChangeMadeOnceItsWriteHasTakenTheValueIsWrittenNext() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "defaults.ini")
      let store = DefaultsStore(file: file)
      @Shared(.defaults("k", store: store)) var k = 0
      do {
        let lock = try LockFile(beside: file.path)
        $k.withLock { $0 = 1 }  // The leading write: taken at once, then waits for the lock.
        let lockFile = folder.appending(path: ".defaults.ini.lock")
        await expectEventually(timeout: .seconds(30), "the write waits for the lock") {
          waitsForFlock(on: lockFile)
        }
        $k.withLock { $0 = 2 }
        _ = consume lock
      }
      await TetherSystem.flush()
      #expect(contents(file) == "k = 2\n", "\(String(describing: $k.saveError))")
    }
  }

  /// Threads take turns changing one key while writes, 2 ms apart, read its waiting change:
  /// every change is counted, and the file ends with the holders' last value.
  @Test func aBurstFromManyThreadsWhileWritesRunEndsWithItsLastValue() async throws {
    let (threads, changes) = (4, Soak.size(ci: 2_000, soak: 20_000))
    try await withTemporaryDirectory { folder in
      try await defaultsBootstrap(folder, throttle: "2ms") {
        let file = folder.appending(path: "defaults.ini")
        try Data("k = 0\n".utf8).write(to: file)
        @Shared(.registered("k")) var k = 0
        #expect(k == 0)
        let shared = $k
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
          for _ in 0..<changes { shared.withLock { $0 += 1 } }
        }
        #expect(k == threads * changes)
        await TetherSystem.flush()
        #expect(contents(file) == "k = \(threads * changes)\n")
        #expect($k.saveError == nil)
      }
    }
  }

  /// Holders of one name as `Int` and as `String` change it on two threads at once, while
  /// writes run 2 ms apart: however their changes were numbered and submitted, a last change
  /// made once both are done is the one the file ends with.
  ///
  /// Under the full parallel suite's load, a thread can be preempted between numbering its
  /// change and submitting it, so that a change arrives after a newer one of the same key. A
  /// merge that kept the late change's base, taken before writes since, made every later write
  /// of the key a conflict, the last change's too (the round ended with `n = t0`): a late,
  /// older change is superseded whole.
  @Test func holdersOfOneNameAsTwoTypesOnTwoThreadsEndWithTheLastChange() async throws {
    let (rounds, changes) = (Soak.size(ci: 20, soak: 100), 300)
    try await withTemporaryDirectory { folder in
      try await defaultsBootstrap(folder, throttle: "2ms") {
        let file = folder.appending(path: "defaults.ini")
        let store = DefaultsStore(file: file)
        let number = Shared(wrappedValue: 0, .defaults("n", store: store))
        let text = Shared(wrappedValue: "", .defaults("n", store: store))
        for round in 0..<rounds {
          DispatchQueue.concurrentPerform(iterations: 2) { thread in
            for change in 0..<changes {
              if thread == 0 {
                number.withLock { $0 = change }
              } else {
                text.withLock { $0 = "t\(change)" }
              }
            }
          }
          let last = round.isMultiple(of: 2) ? "end\(round)" : nil
          if let last {
            text.withLock { $0 = last }
          } else {
            number.withLock { $0 = -round }
          }
          await TetherSystem.flush()
          let errors = (number.saveError, text.saveError)
          #expect(
            contents(file) == "n = \(last ?? "\(-round)")\n",
            "round \(round): saveError \(String(describing: errors))")
        }
      }
    }
  }
}

/// Whether a process waits for an exclusive `flock` of `url` (a `->` line of `/proc/locks`
/// naming the file's inode).
private func waitsForFlock(on url: URL) -> Bool {
  var status = stat()
  guard stat(url.path, &status) == 0,
    let locks = try? String(contentsOfFile: "/proc/locks", encoding: .utf8)
  else { return false }
  return locks.split(separator: "\n").contains { line in
    line.contains("-> FLOCK") && line.contains(":\(status.st_ino) ")
  }
}
