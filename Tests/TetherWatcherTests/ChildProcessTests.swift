import Foundation
import Testing
import TetherTestHelperSupport
import TetherTesting

/// Situations that need a process of their own: the process's watcher on libinotifytools (one a
/// process) paused, overflowed or out of watches, a descriptor table already past 1024, lowered
/// kernel limits. Exact counts on a watcher of its own run in process (`WatchCountTests`).
@Suite(.timeLimit(.minutes(3))) struct ChildProcessTests {
  /// `readdir`'s last record can end right before unmapped memory (a shared `/tmp` with
  /// thousands of entries made this crash one run in two): a listing reads only the record.
  @Test func aDirectoryRecordEndingAtAnUnmappedPageIsReadInPlace() async throws {
    let result = try await runHelper(.shortRecordAtPageEnd)
    #expect(result.status == 0, "\(result.errors)")
    #expect(result.report.names == ["a"])
  }

  @Test func theDescriptorIsCloseOnExecAndTheControlFolderIsRemovedAtExit() async throws {
    try await withTemporaryDirectory { root in
      let runtime = root.appending(path: "runtime")
      try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
      let result = try await runHelper(
        .countWatches(folder: root.appending(path: "files").path, folders: 1, files: 1),
        environment: ["XDG_RUNTIME_DIR": runtime.path])
      #expect(result.status == 0, "\(result.errors)")
      #expect(result.report.closeOnExec == true)
      #expect(try FileManager.default.contentsOfDirectory(atPath: runtime.path).isEmpty)
    }
  }

  @Test func aKilledWatchersControlFolderIsRemovedByTheNextOne() async throws {
    try await withTemporaryDirectory { root in
      let runtime = root.appending(path: "runtime")
      try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
      let killed = try helperProcess(.saveLoop(file: root.appending(path: "loop.json").path))
      killed.environment = ["XDG_RUNTIME_DIR": runtime.path]
      try killed.run()
      // Its folder is whole once `wake` is in it: killed before, it would be a half-made one,
      // which is kept until old (the next test's case).
      await expectEventually(timeout: .seconds(30)) {
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: runtime.path)) ?? []
        return folders.count == 1
          && FileManager.default.fileExists(
            atPath: runtime.appending(path: folders[0]).path + "/wake")
      }
      kill(killed.processIdentifier, SIGKILL)
      _ = await waitForExit(killed, timeout: .seconds(30))
      let next = try await runHelper(
        .countWatches(folder: root.appending(path: "files").path, folders: 1, files: 1),
        environment: ["XDG_RUNTIME_DIR": runtime.path])
      #expect(next.status == 0, "\(next.errors)")
      #expect(try FileManager.default.contentsOfDirectory(atPath: runtime.path).isEmpty)
    }
  }

  /// A watcher killed while making its folder leaves it without a locked `wake`: removed once it
  /// is old, kept while it may still be in the making, and a live watcher's is never touched.
  @Test func aControlFolderKilledHalfMadeIsRemovedOnceOld() async throws {
    try await withTemporaryDirectory { root in
      let runtime = root.appending(path: "runtime")
      let manager = FileManager.default
      func folder(
        _ name: String, prefix: String = "tether-watch-", files: [String] = [],
        ageInSeconds: TimeInterval
      ) throws -> URL {
        let folder = runtime.appending(path: prefix + name)
        try manager.createDirectory(at: folder, withIntermediateDirectories: true)
        for file in files { try Data().write(to: folder.appending(path: file)) }
        try manager.setAttributes(
          [.modificationDate: Date(timeIntervalSinceNow: -ageInSeconds)], ofItemAtPath: folder.path)
        return folder
      }
      _ = try folder("empty", ageInSeconds: 120)
      _ = try folder("unrenamed", files: ["wake.new"], ageInSeconds: 120)
      _ = try folder("making", files: ["wake.new"], ageInSeconds: 0)
      // Not a watcher's: the name only looks like one.
      _ = try folder("", prefix: "tether-watch", ageInSeconds: 120)
      _ = try folder("old", prefix: "my-tether-watch-", ageInSeconds: 120)
      let live = try folder("live", files: ["wake"], ageInSeconds: 120)
      let fd = open(live.appending(path: "wake").path, O_RDONLY)
      #expect(fd >= 0 && flock(fd, LOCK_EX) == 0)
      defer { close(fd) }
      let result = try await runHelper(
        .countWatches(folder: root.appending(path: "files").path, folders: 1, files: 1),
        environment: ["XDG_RUNTIME_DIR": runtime.path])
      #expect(result.status == 0, "\(result.errors)")
      #expect(
        try manager.contentsOfDirectory(atPath: runtime.path).sorted()
          == ["my-tether-watch-old", "tether-watch", "tether-watch-live", "tether-watch-making"])
    }
  }

  /// Released folders are unwatched in the kernel too, whatever their watch descriptor (the
  /// kernel lists them in hex: read as decimal, 10 to 15 looked dropped already and were kept),
  /// through libinotifytools as through the kernel's calls (`WatchCountTests`).
  @Test func everyReleasedFolderIsUnwatchedInTheKernel() async throws {
    try await withTemporaryDirectory { root in
      let result = try await runHelper(.releaseFolders(folder: root.path))
      #expect(result.status == 0, "\(result.errors)")
      #expect(result.report.inotifyWatches == 1, "\(result.output)")
      #expect(result.report.kernelWatches == 1, "\(result.output)")
      #expect(result.report.rebuilds == 0, "\(result.output)")
    }
  }

  @Test func twentyThousandCreationsWhilePausedOverflowThenRescan() async throws {
    try await withTemporaryDirectory { root in
      let result = try await runHelper(.overflow(folder: root.path))
      #expect(result.status == 0, "\(result.errors)")
      #expect((result.report.overflows ?? 0) >= 1, "\(result.output)")
      #expect(result.report.delivered == 1, "the rescan found the final content")
    }
  }

  /// The wake-up of a caller waiting for the thread (here a watch of a folder not made yet) may be lost
  /// to an overflow: the thread serves what was asked when it sees the overflow.
  @Test func aWakeUpLostToAnOverflowDoesNotLeaveItsCallerWaiting() async throws {
    try await withTemporaryDirectory { root in
      let runtime = root.appending(path: "runtime")
      try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: false)
      let result = try await runHelper(
        .overflowLostWake(folder: root.appending(path: "files").path),
        environment: ["XDG_RUNTIME_DIR": runtime.path])
      #expect(result.status == 0, "\(result.errors)")
      #expect((result.report.overflows ?? 0) >= 1, "\(result.output)")
      #expect(result.report.returned == true, "\(result.output)")
    }
  }

  /// Events lost to an overflow may include a writer's truncation: the file is then taken as
  /// being written, and its empty state is not delivered while the writer has yet to write.
  @Test func aFileTruncatedDuringAnOverflowWaitsForItsWriter() async throws {
    try await withTemporaryDirectory { root in
      let result = try await runHelper(.overflowMidWrite(folder: root.path))
      #expect(result.status == 0, "\(result.errors)")
      #expect((result.report.overflows ?? 0) >= 1, "\(result.output)")
      expectOnlyTheWrittenBytes(result)
    }
  }

  /// Overflows that keep coming (a flood of events in a watched folder) hold up a change of a
  /// watched file for the writer wait at most, never until the flood ends.
  @Test func aChangeArrivesWhileOverflowsKeepComing() async throws {
    try await withTemporaryDirectory { root in
      let result = try await runHelper(.overflowsKeepComing(folder: root.path))
      #expect(result.status == 0, "\(result.errors)")
      #expect(result.report.delivered == 1, "\(result.output)")
      #expect((result.report.overflowsBeforeDelivery ?? 0) >= 1, "\(result.output)")
    }
  }

  /// A check that falls due while the watcher thread has yet to read a writer's truncation waits
  /// for the thread to catch up, and so for the writer, instead of delivering the empty file.
  @Test func aCheckWaitsForTheEventsQueuedBeforeIt() async throws {
    try await withTemporaryDirectory { root in
      let result = try await runHelper(.laggingMidWrite(folder: root.path))
      #expect(result.status == 0, "\(result.errors)")
      expectOnlyTheWrittenBytes(result)
    }
  }

  /// The same, with a wake-up of the thread queued before the truncation: the check waits for
  /// the events queued before it, not for the first wake-up the thread reads.
  @Test func aCheckWaitsForTheEventsQueuedBeforeItNotAnEarlierWakeUp() async throws {
    try await withTemporaryDirectory { root in
      let result = try await runHelper(.laggingMidWrite(folder: root.path, behindAWake: true))
      #expect(result.status == 0, "\(result.errors)")
      expectOnlyTheWrittenBytes(result)
    }
  }

  /// The emptied wait runs from when the writer emptied the file, not from when its check fell
  /// due: a check held up (here by a slow subscriber) must still wait for a writer that has just
  /// truncated.
  @Test func anEmptiedFileIsWaitedForFromItsTruncationNotItsLateCheck() async throws {
    try await withTemporaryDirectory { root in
      let result = try await runHelper(.emptiedBehindASlowSubscriber(folder: root.path))
      #expect(result.status == 0, "\(result.errors)")
      expectOnlyTheWrittenBytes(result)
    }
  }

  /// A check waiting for the watcher thread to catch up holds up no other file's delivery.
  @Test func aCheckWaitingForTheThreadHoldsUpNoOtherFile() async throws {
    try await withTemporaryDirectory { root in
      let result = try await runHelper(.missingWhileACheckWaits(folder: root.path))
      #expect(result.status == 0, "\(result.errors)")
      #expect(result.report.missingWhilePaused == true, "\(result.output)")
    }
  }

  /// A deleted folder ends its own watch only: the other folders' watches stand (starting the
  /// library afresh re-reads every watched file), and the folder is watched again when remade.
  @Test func aDeletedFolderLeavesTheOtherWatchesAlone() async throws {
    try await withTemporaryDirectory { root in
      let result = try await runHelper(.dropOneFolder(folder: root.path))
      #expect(result.status == 0, "\(result.errors)")
      #expect(result.report.missing == true, "\(result.output)")
      #expect(result.report.changed == true, "\(result.output)")
      #expect(result.report.rebuildsAfterDrop == 0, "\(result.output)")
      #expect(result.report.back == true, "\(result.output)")
      #expect(!result.errors.contains("Failed to remove watch"), "\(result.errors)")
    }
  }

  /// A new folder's watch is added by its first caller, which does not wait for the watcher
  /// thread: a key made while the thread is busy (here paused) returns, and a write made before
  /// the thread takes the watch over is delivered; no watch is counted twice or left behind.
  @Test func aNewFoldersWatchIsAddedWithoutWaitingForTheThread() async throws {
    try await withTemporaryDirectory { root in
      let result = try await runHelper(
        .watchWhilePaused(folder: root.path), timeout: .seconds(60))
      #expect(result.status == 0, "\(result.errors)")
      #expect(result.report.delivered == 1, "\(result.output)")
      // And the folders above the root, followed for their moves.
      let ancestors = ancestorWatches(forFoldersIn: root) - 1
      #expect(result.report.kernelWatches == 3 + ancestors, "control, root and new")
      #expect(result.report.countedWatches == 3 + ancestors, "\(result.output)")
      #expect(result.report.kernelWatchesAfterRelease == 2 + ancestors, "\(result.output)")
    }
  }

  /// A key made again in a folder whose last key just went finds the folder still watched (no
  /// wait for the watcher thread); the watch goes a second later, and a folder deleted while
  /// idle is watched afresh.
  @Test func aFolderKeepsItsWatchForAMomentAfterItsLastFile() async throws {
    try await withTemporaryDirectory { root in
      let result = try await runHelper(.rewatchFolder(folder: root.path))
      #expect(result.status == 0, "\(result.errors)")
      #expect(result.report.stood == true, "\(result.output)")
      #expect(result.report.delivered == 1, "\(result.output)")
      #expect(result.report.kernelWatchesLeft == 1, "\(result.output)")
      let releasedAfter = result.report.releasedAfterMilliseconds ?? 0
      #expect(releasedAfter >= 900, "released \(releasedAfter) ms after the last cancel")
      #expect(result.report.deliveredAgain == true, "\(result.output)")
    }
  }

  /// A folder made, or its ancestor removed, between the thread finding it missing and its
  /// watch of the nearest existing ancestor (which sees nothing of what came before it): the
  /// folder is looked for again, so a second write still arrives, and nothing is polled. A
  /// folder found so whose old watch the kernel dropped is watched afresh, not through the
  /// library's stale entry (whose descriptor no event comes to).
  @Test(arguments: AncestorChange.allCases)
  func aFolderChangedJustBeforeItsAncestorIsWatchedIsFound(_ change: AncestorChange) async throws {
    try await withTemporaryDirectory { root in
      let result = try await runHelper(
        .ancestorChange(change, folder: root.appending(path: "r").path))
      #expect(result.status == 0, "\(result.errors)")
      #expect(result.report.deliveredAgain == true, "\(result.output)")
      #expect(result.report.polled == 0, "\(result.output)")
    }
  }

  /// A watched folder renamed away keeps its kernel watch (it follows the folder): removed, so a
  /// write in the folder's new place is not taken for the file, which is watched at its path.
  @Test func aFolderMovedAwayIsWatchedAtItsPathNotFollowed() async throws {
    try await withTemporaryDirectory { root in
      let result = try await runHelper(.moveFolderAway(folder: root.path))
      #expect(result.status == 0, "\(result.errors)")
      #expect(result.report.missing == true, "\(result.output)")
      #expect(result.report.back == true, "\(result.output)")
      #expect(result.report.wrongFile == 0, "\(result.output)")
      #expect(
        result.report.kernelWatches == 2 + ancestorWatches(forFoldersIn: root) - 1,
        "the control file's, root's and those of the folders above it")
      #expect(!result.errors.contains("Failed to remove watch"), "\(result.errors)")
    }
  }

  /// The library keeps its entry for a watch the kernel dropped, and hands its stale descriptor
  /// to the next watch of the same folder: removing a dead watch must start it afresh instead.
  @Test func aFolderDeletedAsItsLastWatchEndsIsWatchedAgainWhenRemade() async throws {
    try await withTemporaryDirectory { root in
      let result = try await runHelper(.rewatchDeletedFolder(folder: root.path))
      #expect(result.status == 0, "\(result.errors)")
      #expect(result.report.delivered == 1, "\(result.output)")
      #expect(!result.errors.contains("Failed to remove watch"), "\(result.errors)")
    }
  }

  @Test func aDescriptorPast1024FallsBackToPollingAndStillDelivers() async throws {
    try await withTemporaryDirectory { root in
      let result = try await runHelper(.manyDescriptors(folder: root.path))
      #expect(result.status == 0, "exits 0 instead of aborting in select(): \(result.errors)")
      #expect(result.report.fallback?.contains("select()") == true)
      #expect(result.report.delivered == 2, "both files of the folder")
    }
  }

  /// Per-user-namespace limits (kernel ≥ 5.11) let CI lower them without touching the host.
  func underLoweredLimit(
    _ limit: String, to value: Int, folders: [String]
  ) async throws
    -> HelperRun?
  {
    let probe = try await runChild("/usr/bin/unshare", ["-U", "-r", "true"])
    guard probe.status == 0, FileManager.default.fileExists(atPath: "/proc/sys/user/\(limit)")
    else {
      print("skipped: unshare -U -r or /proc/sys/user/\(limit) is unavailable: \(probe.errors)")
      return nil
    }
    // The helper's path is the script's $0, its command $1.
    let script = "echo \(value) > /proc/sys/user/\(limit) && exec \"$0\" \"$@\""
    return try await runHelper(
      .watchFolders(folders: folders),
      launcher: ["/usr/bin/unshare", "-U", "-r", "/bin/sh", "-c", script])
  }

  @Test func theWatchLimitFallsBackToPollingForTheFoldersOverIt() async throws {
    try await withTemporaryDirectory { root in
      let folders = (0..<3).map { root.appending(path: "f\($0)").path }
      // One watch: the control file's. Every folder is over the limit.
      guard
        let result = try await underLoweredLimit("max_inotify_watches", to: 1, folders: folders)
      else { return }
      #expect(result.status == 0, "\(result.errors)")
      #expect(result.report.delivered == 6, "two files a folder: \(result.output)")
      // A file that joins a folder already polled is polled too.
      #expect(result.report.polled == 6, "\(result.output)")
      #expect(result.report.pollReasons?.first?.contains("watch limit") == true)
    }
  }

  @Test func theInstanceLimitFallsBackToPolling() async throws {
    try await withTemporaryDirectory { root in
      guard
        let result = try await underLoweredLimit(
          "max_inotify_instances", to: 0, folders: [root.appending(path: "f").path])
      else { return }
      #expect(result.status == 0, "\(result.errors)")
      #expect(result.report.delivered == 2, "two files: \(result.output)")
      #expect(result.report.fallback?.contains("instance limit") == true)
    }
  }
}

/// What a mid-write scenario must report: the writer's bytes arrived, once, and the empty file
/// it left for a while never did.
private func expectOnlyTheWrittenBytes(
  _ result: HelperRun, sourceLocation: SourceLocation = #_sourceLocation
) {
  #expect(
    result.report.delivered == 1, "\(result.output)", sourceLocation: sourceLocation)
  #expect(result.report.empty == 0, "\(result.output)", sourceLocation: sourceLocation)
  #expect(
    result.report.deliveries == 1, "\(result.output)", sourceLocation: sourceLocation)
}
