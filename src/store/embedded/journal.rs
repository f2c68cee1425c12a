//! The embedded store's journal: appends are durable once their group is in it.
//!
//! A group (the appends of one group commit) is one record: `[body length u32][CRC-32 of
//! sequence + body u32][sequence u64][body]`, little-endian, written at the end of the current
//! segment with one `write` and made durable with one `fdatasync`. The body holds the values
//! exactly as the redb tables will (checksummed storage records), so applying a group to the
//! database is a copy. Segments (`journal/<first sequence>.log`, 8 MiB) are written with zeros
//! ahead of use (a spare is prepared in the background while the current one fills): an
//! `fdatasync` of blocks already allocated need not also commit the file system's metadata,
//! which halved its cost here. They are deleted once every group in them is durable in the
//! database; on open, whatever the database has not applied (sequence above its `applied`
//! mark) is applied before the store serves. A torn or damaged record, or the zeros after the
//! last record, end the replay: a torn record was never acknowledged, since its `fdatasync`
//! did not return.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;

/// Bytes at the start of every segment: the format, so a later one is recognised.
const MAGIC: &[u8; 8] = b"TVJRNL01";
/// A segment is closed, and a new one started, once it passes this size: old segments are
/// deleted whole once applied, so this bounds the disk a fully applied journal holds.
const SEGMENT_BYTES: u64 = 8 << 20;
/// The segment being prepared for the next rotation.
const SPARE: &str = "next.spare";
/// A record's header: length, checksum, sequence.
const HEADER: usize = 16;

/// One session's part of a group, in stored form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub session: String,
    /// The session's metadata after the append (a checksummed value of `sessions_v3`).
    pub meta: Vec<u8>,
    /// New events: offset, event id, checksummed value of `events_v3`.
    pub events: Vec<(u64, String, Vec<u8>)>,
    /// Delete the events before this offset.
    pub trim_before: Option<u64>,
    /// Call id → phase bits.
    pub calls: Vec<(String, u8)>,
}

/// The appends of one group commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    pub seq: u64,
    pub entries: Vec<Entry>,
}

impl Group {
    /// What the group costs in memory until it is applied, about: its stored values, and the
    /// overlay's and the applier's bookkeeping per session and per event (measured: a group of
    /// one-event sessions costs several times its values).
    pub fn bytes(&self) -> usize {
        self.entries
            .iter()
            .map(|e| {
                1024 + e.meta.len()
                    + e.events
                        .iter()
                        .map(|(_, id, value)| 2 * value.len() + id.len() + 256)
                        .sum::<usize>()
            })
            .sum()
    }

    fn encode(&self) -> Vec<u8> {
        let mut body = Vec::with_capacity(self.bytes() + 64);
        put_u32(&mut body, self.entries.len());
        for e in &self.entries {
            put_bytes(&mut body, e.session.as_bytes());
            put_bytes(&mut body, &e.meta);
            body.extend_from_slice(&e.trim_before.map_or(0, |t| t + 1).to_le_bytes());
            put_u32(&mut body, e.events.len());
            for (offset, id, value) in &e.events {
                body.extend_from_slice(&offset.to_le_bytes());
                put_bytes(&mut body, id.as_bytes());
                put_bytes(&mut body, value);
            }
            put_u32(&mut body, e.calls.len());
            for (call, bits) in &e.calls {
                put_bytes(&mut body, call.as_bytes());
                body.push(*bits);
            }
        }
        let mut out = Vec::with_capacity(HEADER + body.len());
        out.extend_from_slice(&(body.len() as u32).to_le_bytes());
        let mut crc = crc32fast::Hasher::new();
        crc.update(&self.seq.to_le_bytes());
        crc.update(&body);
        out.extend_from_slice(&crc.finalize().to_le_bytes());
        out.extend_from_slice(&self.seq.to_le_bytes());
        out.extend_from_slice(&body);
        out
    }

    /// The record at the start of `bytes` and its length, or `None` if it is torn or damaged.
    fn decode(bytes: &[u8]) -> Option<(Group, usize)> {
        let len = u32::from_le_bytes(bytes.get(0..4)?.try_into().ok()?) as usize;
        let sum = u32::from_le_bytes(bytes.get(4..8)?.try_into().ok()?);
        let seq_bytes = bytes.get(8..16)?;
        let body = bytes.get(HEADER..HEADER.checked_add(len)?)?;
        let mut crc = crc32fast::Hasher::new();
        crc.update(seq_bytes);
        crc.update(body);
        if crc.finalize() != sum {
            return None;
        }
        let seq = u64::from_le_bytes(seq_bytes.try_into().ok()?);
        let mut r = Reader(body);
        let mut entries = Vec::new();
        for _ in 0..r.u32()? {
            let session = r.string()?;
            let meta = r.bytes()?.to_vec();
            let trim_before = r.u64()?.checked_sub(1);
            let mut events = Vec::new();
            for _ in 0..r.u32()? {
                events.push((r.u64()?, r.string()?, r.bytes()?.to_vec()));
            }
            let mut calls = Vec::new();
            for _ in 0..r.u32()? {
                calls.push((r.string()?, r.u8()?));
            }
            entries.push(Entry {
                session,
                meta,
                events,
                trim_before,
                calls,
            });
        }
        r.0.is_empty()
            .then_some((Group { seq, entries }, HEADER + len))
    }
}

fn put_u32(out: &mut Vec<u8>, n: usize) {
    out.extend_from_slice(&(n as u32).to_le_bytes());
}

fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_u32(out, b.len());
    out.extend_from_slice(b);
}

/// Reads a record body; every read is bounds-checked (`None` past the end).
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }
    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }
    fn u32(&mut self) -> Option<usize> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?) as usize)
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = self.u32()?;
        self.take(n)
    }
    fn string(&mut self) -> Option<String> {
        String::from_utf8(self.bytes()?.to_vec()).ok()
    }
}

/// The journal directory of a data directory.
pub fn dir_of(data: &Path) -> PathBuf {
    data.join("journal")
}

/// The segments in `dir`, oldest first, with the first sequence each holds.
fn segments(dir: &Path) -> io::Result<Vec<(u64, PathBuf)>> {
    let mut out = Vec::new();
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(e),
    };
    for entry in entries {
        let path = entry?.path();
        let first = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(".log"))
            .and_then(|n| n.parse::<u64>().ok());
        if let Some(first) = first {
            out.push((first, path));
        }
    }
    out.sort();
    Ok(out)
}

/// Every intact group in the journal, in order; a segment's reading ends at its first torn or
/// damaged record (the tail of a write that was never acknowledged).
pub fn replay(dir: &Path) -> io::Result<Vec<Group>> {
    let mut groups = Vec::new();
    for (_, path) in segments(dir)? {
        let mut bytes = Vec::new();
        File::open(&path)?.read_to_end(&mut bytes)?;
        let Some(mut rest) = bytes.strip_prefix(MAGIC.as_slice()) else {
            tracing::warn!(path = %path.display(), "not a journal segment of this format; skipped");
            continue;
        };
        while let Some((group, used)) = Group::decode(rest) {
            groups.push(group);
            rest = &rest[used..];
        }
        if rest.iter().any(|b| *b != 0) {
            tracing::warn!(path = %path.display(), bytes = rest.len(), "journal ends with an unacknowledged partial write; ignored");
        }
    }
    Ok(groups)
}

/// Deletes every segment (once the database holds what they did), and a spare.
pub fn clear(dir: &Path) -> io::Result<()> {
    for (_, path) in segments(dir)? {
        std::fs::remove_file(path)?;
    }
    match std::fs::remove_file(dir.join(SPARE)) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// The journal being written: the current segment and the older ones not yet deleted.
pub struct Journal {
    dir: PathBuf,
    file: File,
    /// The current segment's length up to its last acknowledged record.
    len: u64,
    /// Where a failed write may have reached: zeroed again by [`Journal::rollback`].
    dirty: u64,
    /// The next segment, being written with zeros.
    spare: Option<JoinHandle<io::Result<File>>>,
    /// Older segments, with their first sequence, oldest first.
    older: Vec<(u64, PathBuf)>,
    current: (u64, PathBuf),
    next_seq: u64,
}

impl Journal {
    /// Starts a journal in `dir` whose first group gets `next_seq`. Segments left there must
    /// hold only applied groups (they are deleted as such).
    pub fn create(dir: &Path, next_seq: u64) -> io::Result<Self> {
        std::fs::create_dir_all(dir)?;
        let older = segments(dir)?;
        let first = preallocated(&dir.join(SPARE));
        let (file, current) = new_segment(dir, next_seq, first)?;
        Ok(Journal {
            dir: dir.to_owned(),
            file,
            len: MAGIC.len() as u64,
            dirty: MAGIC.len() as u64,
            spare: prepare(dir),
            older,
            current,
            next_seq,
        })
    }

    /// The sequence the next group gets.
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// Writes a group (its `seq` must be [`Journal::next_seq`]) and waits until it is on disk.
    /// On an error the group may be partly written: call [`Journal::rollback`].
    pub fn append(&mut self, group: &Group) -> io::Result<()> {
        debug_assert_eq!(group.seq, self.next_seq);
        fail::fail_point!("journal-write", |_| Err(io::Error::other("failpoint")));
        let record = group.encode();
        self.dirty = self.len + record.len() as u64;
        self.file.write_all(&record)?;
        self.file.sync_data()?;
        self.len += record.len() as u64;
        self.next_seq += 1;
        Ok(())
    }

    /// Cuts the current segment back to its last acknowledged record, durably: a failed write
    /// must not reappear on the next open.
    pub fn rollback(&mut self) -> io::Result<()> {
        let zeros = vec![0u8; 64 << 10];
        let mut at = self.len;
        while at < self.dirty {
            let n = (self.dirty - at).min(zeros.len() as u64);
            self.file.write_all_at(&zeros[..n as usize], at)?;
            at += n;
        }
        self.file.sync_data()?;
        self.dirty = self.len;
        self.file.seek(SeekFrom::Start(self.len))?;
        Ok(())
    }

    /// Whether the journal takes a write: a block of zeros where the next record goes, synced.
    pub fn probe(&mut self) -> io::Result<()> {
        self.rollback()?;
        self.file.write_all_at(&[0u8; 4096], self.len)?;
        self.file.sync_data()
    }

    /// Starts a new segment once the current one is full, and deletes older segments whose
    /// groups are all applied (sequence ≤ `applied`).
    pub fn maintain(&mut self, applied: u64) -> io::Result<()> {
        if self.len >= SEGMENT_BYTES {
            let spare = self.spare.take().map(|t| {
                t.join()
                    .unwrap_or_else(|_| Err(io::Error::other("preparing a segment panicked")))
            });
            let (file, current) = new_segment(
                &self.dir,
                self.next_seq,
                spare.unwrap_or_else(|| Err(io::Error::other("no spare"))),
            )?;
            self.file = file;
            self.len = MAGIC.len() as u64;
            self.dirty = self.len;
            self.older
                .push(std::mem::replace(&mut self.current, current));
            self.spare = prepare(&self.dir);
        }
        // A segment is applied when the one after it starts at or before `applied + 1`.
        while !self.older.is_empty() {
            let next_first = self.older.get(1).map_or(self.current.0, |s| s.0);
            if next_first > applied.saturating_add(1) {
                break;
            }
            let (_, path) = self.older.remove(0);
            std::fs::remove_file(&path)?;
        }
        Ok(())
    }
}

impl Drop for Journal {
    fn drop(&mut self) {
        // The spare's thread must not create its file after the journal is cleared.
        if let Some(spare) = self.spare.take() {
            let _ = spare.join();
        }
    }
}

/// A segment file of [`SEGMENT_BYTES`] zeros after the magic, synced, positioned after the
/// magic.
fn preallocated(path: &Path) -> io::Result<File> {
    let mut file = OpenOptions::new()
        .create(true)
        .truncate(true)
        .write(true)
        .open(path)?;
    file.write_all(MAGIC)?;
    let zeros = vec![0u8; 1 << 20];
    let mut left = SEGMENT_BYTES - MAGIC.len() as u64;
    while left > 0 {
        let n = left.min(zeros.len() as u64);
        file.write_all(&zeros[..n as usize])?;
        left -= n;
    }
    file.sync_all()?;
    file.seek(SeekFrom::Start(MAGIC.len() as u64))?;
    Ok(file)
}

/// Starts writing the next segment in the background (none if no thread can be started: the
/// next rotation then makes a segment that grows as it is written).
fn prepare(dir: &Path) -> Option<JoinHandle<io::Result<File>>> {
    let path = dir.join(SPARE);
    std::thread::Builder::new()
        .name("toolview-journal".into())
        .spawn(move || preallocated(&path))
        .ok()
}

/// The segment for groups from `first`: the prepared `spare` renamed, or, if preparing it
/// failed (a full disk), an empty file. Its name is durable in the directory before anything
/// is acknowledged from it.
fn new_segment(
    dir: &Path,
    first: u64,
    spare: io::Result<File>,
) -> io::Result<(File, (u64, PathBuf))> {
    let path = dir.join(format!("{first:020}.log"));
    let file = match spare {
        Ok(file) => {
            std::fs::rename(dir.join(SPARE), &path)?;
            file
        }
        Err(e) => {
            tracing::debug!(error = %e, "no preallocated journal segment");
            let _ = std::fs::remove_file(dir.join(SPARE));
            let mut file = OpenOptions::new()
                .create(true)
                .truncate(true)
                .write(true)
                .open(&path)?;
            file.write_all(MAGIC)?;
            file.sync_all()?;
            file
        }
    };
    File::open(dir)?.sync_all()?;
    Ok((file, (first, path)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn group(seq: u64) -> Group {
        Group {
            seq,
            entries: vec![Entry {
                session: "s".into(),
                meta: vec![1, 2, 3],
                events: vec![(seq, format!("e{seq}"), vec![9; 10])],
                trim_before: seq.is_multiple_of(2).then_some(seq - 1),
                calls: vec![("c".into(), 3)],
            }],
        }
    }

    #[test]
    fn groups_round_trip_and_torn_tails_are_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let mut j = Journal::create(dir.path(), 7).unwrap();
        for seq in 7..10 {
            j.append(&group(seq)).unwrap();
        }
        // A torn fourth record.
        j.file.write_all(&group(10).encode()[..20]).unwrap();
        drop(j);
        let groups = replay(dir.path()).unwrap();
        assert_eq!(groups, (7..10).map(group).collect::<Vec<_>>());
    }

    #[test]
    fn a_damaged_byte_ends_the_replay() {
        let dir = tempfile::tempdir().unwrap();
        let mut j = Journal::create(dir.path(), 1).unwrap();
        j.append(&group(1)).unwrap();
        j.append(&group(2)).unwrap();
        let path = dir.path().join(format!("{:020}.log", 1));
        let mut bytes = std::fs::read(&path).unwrap();
        let last = j.len as usize - 3;
        bytes[last] ^= 1;
        std::fs::write(&path, bytes).unwrap();
        assert_eq!(replay(dir.path()).unwrap(), vec![group(1)]);
    }

    #[test]
    fn rollback_removes_a_failed_write() {
        let dir = tempfile::tempdir().unwrap();
        let mut j = Journal::create(dir.path(), 1).unwrap();
        j.append(&group(1)).unwrap();
        // A failed write of a longer record than the retry's.
        let garbage = vec![7u8; 10_000];
        j.dirty = j.len + garbage.len() as u64;
        j.file.write_all(&garbage).unwrap();
        j.rollback().unwrap();
        j.probe().unwrap();
        j.append(&group(2)).unwrap();
        assert_eq!(replay(dir.path()).unwrap(), vec![group(1), group(2)]);
    }

    #[test]
    fn applied_segments_are_deleted() {
        let dir = tempfile::tempdir().unwrap();
        let mut j = Journal::create(dir.path(), 1).unwrap();
        j.append(&group(1)).unwrap();
        j.len = SEGMENT_BYTES; // as if full
        j.maintain(0).unwrap();
        j.append(&group(2)).unwrap();
        assert_eq!(segments(dir.path()).unwrap().len(), 2);
        j.maintain(0).unwrap();
        assert_eq!(
            segments(dir.path()).unwrap().len(),
            2,
            "group 1 not applied yet"
        );
        j.maintain(1).unwrap();
        assert_eq!(segments(dir.path()).unwrap().len(), 1);
        assert_eq!(replay(dir.path()).unwrap(), vec![group(2)]);
    }
}
