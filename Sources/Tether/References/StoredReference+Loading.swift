/// Loading: the initial load and subscription, reloads, and what the key delivers.
extension StoredReference {
  /// Runs the key's initial load and subscribes to its changes.
  // Inlined with the holder's `make` (see `LiveReferences`), so the load's context and
  // continuation are made with the value type known.
  @inlinable
  func start(skipInitialLoad: Bool) {
    guard let keyed else { return }
    let reader = keyed.reader
    let context = LoadContext.initialValue(keyed.initialValue)
    if !skipInitialLoad {
      setLoading(true)
      // Not published yet: no change can have been made.
      reader.load(
        context: context,
        continuation: LoadContinuation(reference: self, since: 0))
    }
    let subscription = reader.subscribe(context: context, subscriber: subscriber())
    lock.withLock { self.subscription = subscription }
  }

  /// The subscriber the key tells of changes, of how writes went, and whether it takes changes
  /// inline.
  @usableFromInline
  func subscriber() -> SharedSubscriber<Value> {
    SharedSubscriber<Value>(
      callback: { result in self.finishLoad(result) },
      onLoading: { isLoading in self.setLoading(isLoading) },
      onSaved: { result in self.saveFinished(result) },
      onFallback: { value, error in self.finishLoad(fallingBackTo: value, error: error) },
      onRecovered: { self.clearLoadError() },
      onInline: { keyType, save, forwarders in
        self.lock.withLock {
          self.inlineOfferKeyType = keyType
          self.inlineOfferSave = save
          self.inlineOfferForwarders = forwarders
          self.decideInline()
        }
      },
      withHolders: { body in self.lock.withLock(body) })
  }

  /// Stops following the key, once the last holder has let go (see ``ReferenceLifetime``).
  ///
  /// The key's callbacks hold this reference strongly; cancelling its subscription lets them go.
  func stop() {
    let subscription = lock.withLock {
      defer { self.subscription = nil }
      return self.subscription
    }
    subscription?.cancel()
  }

  @usableFromInline
  var isLoading: Bool {
    access(ObservedSubject.loadingPath)
    return readLock.withLock { _ in loading }
  }

  @usableFromInline
  var loadError: (any Error)? {
    access(ObservedSubject.loadErrorPath)
    return readLock.withLock { _ in lastLoadError }
  }

  @usableFromInline
  func load() async throws {
    guard let reader = keyed?.reader else { return }
    let since = lock.withLock {
      setLoading(true)
      return localChanges
    }
    let result: Result<Value?, any Error>? = await withCheckedContinuation { continuation in
      reader.load(
        context: .userInitiated,
        continuation: LoadContinuation(subject: reader) { result in
          continuation.resume(returning: result)
        })
    }
    finishLoad(result, since: since)
    if case .failure(let error) = result { throw error }
  }

  /// Applies a value from the key; `nil` means the initial value. `since` is the count of local
  /// changes when a load started (see ``finishLoad(returning:since:)``); `nil` for a change the
  /// key delivers, which is newer than any made here.
  @usableFromInline
  func finishLoad(_ result: Result<Value?, any Error>?, since: UInt64? = nil) {
    switch result {
    case .success(let value?): finishLoad(returning: value, since: since)
    case .success(nil): finishLoadReturningInitialValue(since: since)
    case .failure(let error): finishLoad(throwing: error)
    case nil: finishLoadDropped()
    }
  }

  /// Applies a loaded value, unless a local change was committed after the load started: the
  /// load read the store before that change, which is newer. (The outcomes have a method each:
  /// see `LoadBox`.)
  ///
  /// A previous load's error is cleared first, under the same hold of `lock`: whoever the
  /// value's change tells — an Observation `onChange` on this thread, a `changes` reader on
  /// another, which reads `loadError` without waiting for `lock` — never finds the value read
  /// with the error of the read before it.
  func finishLoad(returning value: Value, since: UInt64? = nil) {
    lock.withLock {
      setLoadError(nil)
      if keyed != nil, since == nil || since == localChanges { commit(value) }
      setLoading(false)
    }
  }

  /// Goes back to the default: the key has nothing stored (unless a local change was committed
  /// after the load started, as above). The error is cleared first, as above.
  func finishLoadReturningInitialValue(since: UInt64? = nil) {
    lock.withLock {
      setLoadError(nil)
      if let keyed, since == nil || since == localChanges { commit(keyed.initialValue) }
      setLoading(false)
    }
  }

  /// Takes `value` — the default when `nil` — and sets `loadError`, as one change: the stored
  /// value cannot be read, and `value` stands in for it. The error is set first and both under
  /// one hold of `lock`, so whoever the value's change tells — an Observation `onChange` on this
  /// thread, a `changes` reader on another — finds the error with it, and never takes the
  /// stand-in for what is stored. A load's stand-in is not applied over a local change
  /// committed after the load started (see ``finishLoad(returning:since:)``).
  func finishLoad(fallingBackTo value: Value?, error: any Error, since: UInt64? = nil) {
    lock.withLock {
      setLoadError(error)
      if let keyed, since == nil || since == localChanges { commit(value ?? keyed.initialValue) }
      setLoading(false)
    }
  }

  /// Keeps the value and sets `loadError`.
  func finishLoad(throwing error: any Error) {
    lock.withLock {
      setLoadError(error)
      setLoading(false)
    }
  }

  /// The stored value is readable again and did not change: the error goes, the value stays.
  func clearLoadError() {
    lock.withLock {
      setLoadError(nil)
      setLoading(false)
    }
  }

  /// A load whose continuation was dropped: only loading ends.
  func finishLoadDropped() {
    setLoading(false)
  }

  /// The key a report about one of this value's loads names.
  var keySubject: any Sendable {
    keyed.map { $0.reader as any Sendable } ?? "a shared value without a key"
  }

  @usableFromInline
  func setLoading(_ isLoading: Bool) {
    lock.withLock {
      guard loading != isLoading else { return }
      mutate(ObservedSubject.loadingPath) { loading = isLoading }
    }
  }

  func setLoadError(_ error: (any Error)?) {
    guard lastLoadError != nil || error != nil else { return }
    mutate(ObservedSubject.loadErrorPath) { lastLoadError = error }
  }
}
