#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension OutboxActor {
    /// What `area`'s `owner` file says about this client (``AreaOwner/claim(ownerFile:mine:)``).
    /// A file that exists but cannot be read (an I/O error, a link or folder planted in its
    /// place) is `.unknown`: it may name anyone, so the area is left alone.
    func claim(of area: AreaLayout) -> AreaOwner.Claim {
        do throws(FileSystemError) {
            return AreaOwner.claim(ownerFile: try fileSystem.read(area.ownerFile), mine: owner, former: formerOwners)
        } catch where error.code == ENOENT {
            return AreaOwner.claim(ownerFile: nil, mine: owner, former: formerOwners)
        } catch {
            return .unknown
        }
    }

    /// Writes this client's `owner` file into the area it just took, durably (temporary file,
    /// `fsync`, rename, `fsync` of the folder) and before any journal, so that no event of the
    /// area is ever on disk without it. A client that cannot send writes none: its events stay
    /// sendable by the first client that can, as every event was before owners were recorded.
    func recordOwner(in area: AreaLayout) {
        guard let owner else { return }
        let temporary = area.temporaryFolder + "/owner"
        do {
            let descriptor = try fileSystem.open(temporary, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o600)
            defer { fileSystem.close(descriptor) }
            try writeAll(owner.fileContents, to: descriptor, path: temporary)
            try fileSystem.sync(descriptor, path: temporary)
            try fileSystem.rename(temporary, to: area.ownerFile)
            syncFolder(area.folder)
        } catch {
            try? fileSystem.remove(temporary)
            logger.error("The outbox could not record in \(area.folder) which key and endpoint its events are for (\(error)); until a later launch records it, a client with another key could send them.")
        }
    }

    /// One line at launch for the areas left to other keys or endpoints, so a user who changed
    /// the key or the endpoint learns where the old events wait and who sends them.
    func reportLeftForOthers(_ left: [(name: String, claim: AreaOwner.Claim)]) {
        guard !left.isEmpty else { return }
        let owners = left.map { area -> String in
            switch area.claim {
            case .another(let owner): "\(area.name) for \(owner.description)"
            default: "\(area.name) (its owner file cannot be read)"
            }
        }
        logger.info("Left \(left.count) outbox area(s) with events for another key or endpoint untouched: \(owners.joined(separator: "; ")). Only a client configured with that key and endpoint sends them.")
    }

    /// A quarantined file's name: `<name>.<uuid>`, or `<name>.<uuid>.<tag>` when the area it
    /// came from had an owner (``AreaOwner/tag``). Only files with no tag or this client's tag
    /// are restored into its queue or deleted by its opt-out; another key's stay for that client.
    /// - Returns: The file's own name, and whether it is this client's to take.
    func quarantined(_ name: String) -> (original: String, isOurs: Bool)? {
        var parts = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 2 else { return nil }
        var tag: String?
        if parts.count >= 3, parts[parts.count - 2].count == 36, parts[parts.count - 1].count == 16 {
            tag = parts.removeLast()
        }
        guard parts.removeLast().count == 36 else { return nil } // the uuid
        return (parts.joined(separator: "."), tag == nil || tag == owner?.tag || formerOwners.contains { $0.tag == tag })
    }

    /// A rotated key reached the journal, after every event tracked before it: the area is
    /// recorded as the new key's (durably, as at launch), so a launch configured with the new key
    /// sends what is left; then the uploader is told, and sends everything unsent with it.
    ///
    /// The owner file goes first: were the uploader told first, a kill between the two would
    /// leave events already sent under the new key in an area a launch with that key refuses.
    func rotateOwner(to rotation: KeyRotation) {
        guard let current = owner else { return } // a client that cannot send is refused at the call
        let next = AreaOwner(ingestKey: rotation.key, endpoint: current.endpoint)
        if !formerOwners.contains(where: { $0.matches(current) }) { formerOwners.append(current) }
        owner = next
        if let area { recordOwner(in: area) }
        retagIntakeLog(for: next)
        retagCrashRecord(for: next)
        uploaderInput?.push(.keyRotated(rotation.key))
    }

    /// Renames this run's crash record for the new key: a crash from now on goes with
    /// everything else unsent, so a launch with the new key sends it (before, only one that
    /// listed the replaced key in previousIngestKeys did). The recorder writes through the open
    /// descriptor, which follows the file; the lock follows it too.
    private func retagCrashRecord(for next: AreaOwner) {
        // Only the outbox changes the path once it is set, in rotation order.
        guard let path = crashRecordPath.withLock({ $0 }),
              let renamed = retag(path, prefix: CrashRecordFiles.prefix, suffix: CrashRecordFiles.suffix, for: next, what: "This run's crash record", otherwise: "a crash would be sent only by") else { return }
        crashRecordPath.withLock { $0 = renamed }
    }

    /// Renames this run's intake log for the new key, as everything not yet delivered now goes
    /// with it: a launch with the new key replays it after a kill, and one with only the old
    /// key leaves it (``IntakeLogFiles``). The mapping and its lock follow the file.
    private func retagIntakeLog(for next: AreaOwner) {
        guard let path = intakeLogPath,
              let renamed = retag(path, prefix: IntakeLogFiles.prefix, suffix: IntakeLogFiles.suffix, for: next, what: "The intake log", otherwise: "after a kill, it is replayed only by") else { return }
        intakeLogPath = renamed
    }

    /// Renames the run file at `path` for `next`'s destination (``RunFiles/retagged(_:for:prefix:suffix:)``).
    /// - Returns: The new path; nil when `path` is no such run file or the rename failed (one
    ///   warning line: the file stays the replaced key's).
    private func retag(_ path: String, prefix: String, suffix: String, for next: AreaOwner, what: String, otherwise: String) -> String? {
        guard let renamed = RunFiles.retagged(path, for: next, prefix: prefix, suffix: suffix) else { return nil }
        do {
            try fileSystem.rename(path, to: renamed)
            return renamed
        } catch {
            logger.warning("\(what) \(path) could not be renamed for the new key (\(error)): \(otherwise) a launch that lists the replaced key in previousIngestKeys.")
            return nil
        }
    }
}
