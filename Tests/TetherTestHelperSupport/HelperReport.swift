import Foundation

/// What `tether-test-helper` saw, printed as one line of JSON on its standard output: each
/// command fills the fields it has something for (see ``HelperCommand``), and leaves the others
/// `nil`.
///
/// ```swift
/// let run = try await runHelper(.releaseFolders(folder: root.path))
/// #expect(run.report.kernelWatches == 1, "\(run.output)")
/// ```
public struct HelperReport: Codable, Sendable, Equatable {
  // MARK: The watcher's statistics, reported by every watch scenario

  /// inotify watches the watcher counts: one per watched folder, plus the control folder's.
  public var inotifyWatches: Int?
  /// Files with at least one subscriber.
  public var watchedFiles: Int?
  /// Paths checked by polling.
  public var polled: Int?
  /// Why the paths are polled, each reason once, sorted.
  public var pollReasons: [String]?
  /// Why inotify cannot serve the process at all; `nil` when it can.
  public var fallback: String?
  /// Kernel queue overflows seen.
  public var overflows: Int?
  /// Folders the watcher thread looked at to make its watches match them, summed.
  public var examinedDirectories: Int?
  /// Whether the watcher's inotify descriptor is close-on-exec; `nil` when its `/proc` entry
  /// could not be read.
  public var closeOnExec: Bool?

  // MARK: Watch counts

  /// Files watched (``HelperCommand/countWatches(folder:folders:files:watchedRoot:)``).
  public var files: Int?
  /// Watches the kernel holds for the watcher's descriptor (its `/proc` entry), at the moment
  /// the command describes; -1 when that entry could not be read.
  public var kernelWatches: Int?
  /// The watcher's own count of its watches, when ``kernelWatches`` was taken.
  public var countedWatches: Int?
  /// Watches the kernel holds once the scenario's folder was released.
  public var kernelWatchesAfterRelease: Int?
  /// Watches the kernel holds once every watch of the scenario was cancelled.
  public var kernelWatchesLeft: Int?
  /// Times the library was started afresh.
  public var rebuilds: Int?
  /// Times the library was started afresh once a folder was dropped.
  public var rebuildsAfterDrop: Int?
  /// Whether a folder's kernel watch stood while its last watch went and a new one came.
  public var stood: Bool?
  /// Whether a folder's watch narrowed to its moves once only its descendants wanted it.
  public var narrowed: Bool?
  /// Milliseconds between the last watch's cancellation and the release of its folders.
  public var releasedAfterMilliseconds: Int?

  // MARK: Deliveries

  /// How many of the awaited changes arrived (0 or 1 where a single change is awaited).
  public var delivered: Int?
  /// Whether the awaited change after the first one arrived too.
  public var deliveredAgain: Bool?
  /// Whether a change arrived while other threads were still adding and cancelling watches.
  public var deliveredWhileChurning: Bool?
  /// Overflows of the kernel's queue between a change and its delivery.
  public var overflowsBeforeDelivery: Int?
  /// Deliveries of a watched file's content, whatever it was.
  public var deliveries: Int?
  /// Deliveries of the empty file a writer left for a while.
  public var empty: Int?
  /// Whether a watch call made while the watcher's wake-up was lost returned.
  public var returned: Bool?
  /// Whether a deleted file's removal arrived while the watcher thread was paused.
  public var missingWhilePaused: Bool?
  /// Whether a file of a deleted or moved folder was delivered as missing.
  public var missing: Bool?
  /// Whether another folder's file's change arrived meanwhile.
  public var changed: Bool?
  /// Whether the file arrived again once its folder was made again.
  public var back: Bool?
  /// Deliveries of a write to a moved folder's file, which is not the watched file any more.
  public var wrongFile: Int?

  // MARK: Saving

  /// The error text of a save that failed (`strerror`'s), empty when it succeeded.
  public var failed: String?
  /// The file's content after a flush.
  public var afterFlush: String?
  /// Whether the key's `saveError` was cleared after that flush.
  public var saveErrorCleared: Bool?
  /// The value a key was waited for until it held it.
  public var seen: Int?
  /// When each save returned, in nanoseconds of `CLOCK_MONOTONIC` (the same in every process).
  public var saved: [UInt64]?
  /// How often a value a process held was lower than one it held before.
  public var wentBack: Int?
  /// The errors of saves that threw, each once, with how many times.
  public var saveFailures: [String: Int]?

  // MARK: Listing folders

  /// The names a folder listing gave.
  public var names: [String]?

  // MARK: Logging

  /// The messages logged, in order (``HelperCommand/givenLogger(folder:)``).
  public var messages: [String]?

  /// A report with nothing in it, for the helper to fill.
  public init() {}

  /// The report the helper printed as `line`; throws when `line` is not one.
  public init(line: some StringProtocol) throws {
    self = try JSONDecoder().decode(HelperReport.self, from: Data(line.utf8))
  }

  /// The report as the helper prints it: one line of JSON, its keys sorted, `nil` fields left
  /// out.
  public func line() throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(self), as: UTF8.self)
  }
}
