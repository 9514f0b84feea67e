import Foundation
import Testing
import Tether
import TetherFileStorage
import TetherTestHelperSupport
import TetherTesting

/// Crashes, exits and other processes: real child processes of the test helper.
@Suite(.tetherBootstrap(), .timeLimit(.minutes(5))) struct ProcessTests {
  @Test func twoHundredSIGKILLsNeverLeaveAnUndecodableFile() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "counter.json")
      var generator = SystemRandomNumberGenerator()
      var last = 0
      for round in 0..<200 {
        let process = try helperProcess(.saveLoop(file: file.path))
        // Killed, a child leaves its watcher's control folder: here, not in the shared /tmp.
        process.environment = ProcessInfo.processInfo.environment.merging(
          ["XDG_RUNTIME_DIR": folder.path]) { $1 }
        try process.run()
        // Killed while saving: once its first save is on disk, at a random moment after (a
        // save takes about half a millisecond here, so most kills land in some write).
        await expectEventually(timeout: .seconds(30), "round \(round): the child saves") {
          (try? JSONDecoder().decode(Int.self, from: Data(contentsOf: file))) ?? 0 > last
        }
        try await Task.sleep(for: .microseconds(Int.random(in: 0...10_000, using: &generator)))
        kill(process.processIdentifier, SIGKILL)
        _ = await waitForExit(process, timeout: .seconds(30))
        let data = try Data(contentsOf: file)
        let value = try? JSONDecoder().decode(Int.self, from: data)
        #expect(value != nil, "round \(round): \(String(decoding: data, as: UTF8.self))")
        #expect((value ?? 0) > last, "round \(round): did not go on from \(last)")
        last = value ?? last
      }
      // Opening the file again removes the temp files the killed writers left.
      _ = Shared(wrappedValue: 0, .fileStorage(file))
      let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        .filter { $0.hasPrefix(".counter.json.tether-") }
      #expect(leftovers.isEmpty, "\(leftovers)")
    }
  }

  /// Held until the exit, or released before it: a change no holder waits for is still written.
  @Test(arguments: [false, true])
  func exitWithAPendingThrottledWriteFlushesIt(released: Bool) async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "v.json")
      let result = try await runHelper(.exitPending(file: file.path, released: released))
      #expect(result.status == 0, "\(result.errors)")
      #expect(text(file) == "2")
    }
  }

  @Test func sigtermWithFlushOnTerminationFlushes() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "v.json")
      let ready = folder.appending(path: "ready")
      let process = try helperProcess(.termPending(file: file.path, ready: ready.path))
      try process.run()
      await expectEventually(timeout: .seconds(30)) {
        FileManager.default.fileExists(atPath: ready.path)
      }
      kill(process.processIdentifier, SIGTERM)
      _ = await waitForExit(process, timeout: .seconds(30))
      #expect(process.terminationStatus == 128 + SIGTERM)
      #expect(text(file) == "2")
    }
  }

  @Test func aWriteInOneProcessReachesAnotherHoldingTheSameFile() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "shared.json")
      let ready = folder.appending(path: "ready")
      try Data("0".utf8).write(to: file)
      @Shared(.fileStorage(file)) var value = 0
      // The child holds the key, says so, and waits for 41 to arrive through its watcher. A
      // minute for it to start: an ASan-built child, started with the whole suite under
      // `make asan`, took more than 30 s.
      let child = Task {
        try await runHelper(.waitFor(file: file.path, value: 41, ready: ready.path))
      }
      await expectEventually(timeout: .seconds(60)) {
        FileManager.default.fileExists(atPath: ready.path)
      }
      $value.withLock { $0 = 41 }
      let result = try await child.value
      #expect(result.status == 0, "\(result.errors)")

      // And back: another child writes, this process sees it.
      let writer = try await runHelper(.write(file: file.path, value: 77))
      #expect(writer.status == 0, "\(writer.errors)")
      await expectEventually(timeout: .seconds(30)) { value == 77 }
    }
  }
}
