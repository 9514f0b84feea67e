import TetherFiles

/// The kernel side of a watcher: one inotify instance, driven by its watcher thread alone.
///
/// The process's watcher uses ``LibInotifyTools``; a watcher made for a test uses
/// ``KernelInotify``, of which a process can have any number.
protocol InotifyBackend: AnyObject {
  /// Starts the instance.
  func initialize() throws(SystemError)

  /// Closes the instance, dropping its watches; with `drain`, reads what is queued first.
  func cleanup(drain: Bool)

  /// Watches `path` and returns the kernel's watch descriptor.
  func watch(_ path: String, mask: Int32, isDirectory: Bool) throws(SystemError) -> Int32

  /// Removes a live watch; `false` when the kernel had dropped it.
  func removeWatch(_ wd: Int32) -> Bool

  /// The next event: waits for one to arrive, or (`waiting == false`) returns `nil` at once
  /// when none is ready, buffered or queued; `nil` also when interrupted.
  func nextEvent(waiting: Bool) throws(SystemError) -> Inotify.Event?

  /// The instance's descriptor, once it watches the folder whose inode is `inode`.
  func descriptor(watching inode: UInt64) -> Int32?

  /// Whether a watch the kernel dropped stays in the backend's tables and would be handed to
  /// the path's next watch (libinotifytools): watching such a path again starts afresh.
  var keepsDroppedWatches: Bool { get }
}
