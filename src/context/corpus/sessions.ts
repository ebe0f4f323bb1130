/**
 * The retention corpus: four long design sessions (two Claude, two Codex), each with planted
 * facts — a limit with its number, something tried that failed and why, an option ruled out
 * with its reason, a constraint, an open question, a decision later replaced or reverted —
 * buried in repeated test output, file reads and chatter, and next tasks that each need a known
 * subset of the facts. The phrasing varies from session to session, as agents' does.
 */
import type { CorpusSession } from './types.js';

const ingest: CorpusSession = {
  name: 'ingest',
  agent: 'claude',
  prompt: 'Design the upload ingestion service: endpoint, storage of upload state, checksums.',
  topic: ['upload', 'ingest', 'checksum', 'endpoint'],
  beats: [
    { think: 'Start by reading the current endpoint and the tests around it.' },
    {
      read: 'src/ingest/endpoint.ts',
      content: 'export async function ingest(req: Request) {\n  return store(req.body);\n}\n',
    },
    { noise: 'reads' },
    { say: 'Decision: keep upload state in a JSON file per upload under data/uploads, next to the blobs.' },
    {
      edit: 'src/ingest/store.ts',
      content:
        'export function saveState(id: string, state: UploadState) {\n  writeFileSync(`data/uploads/${id}.json`, JSON.stringify(state));\n}\n',
    },
    { noise: 'tests' },
    { say: 'Decision: endpoint errors are JSON problem documents with a stable `type` URI.' },
    {
      say: 'I will cap uploads at 25 MiB per request; anything larger gets a 413 with the limit in the body.',
    },
    { noise: 'chatter' },
    {
      say: 'We tried streaming the body through busboy and it failed: it buffered whole parts in memory when the client sent no content-length, so a 2 GB part took the process down.',
    },
    {
      run: 'npm test -- ingest',
      output:
        'FAIL test/ingest.test.ts > streams a part without content-length\nRangeError: Array buffer allocation failed',
      ok: false,
    },
    { noise: 'failing-tests' },
    { think: 'S3 multipart would make resumable uploads easy, but the product runs offline.' },
    {
      say: 'Ruled out S3 multipart uploads: the user runs everything offline, so a cloud dependency is not acceptable.',
    },
    { noise: 'grep' },
    { say: 'The checksum has to be SHA-256, because the archive format signs blobs with it.' },
    {
      edit: 'src/ingest/upload.ts',
      content:
        'export function digest(buf: Buffer) {\n  return createHash("sha256").update(buf).digest("hex");\n}\n',
    },
    { noise: 'tests' },
    { noise: 'chatter' },
    {
      run: 'npm run soak -- ingest',
      output:
        'soak: 2 writers\nerror: data/uploads/7f3a.json: Unexpected end of JSON input\nsoak failed after 412 uploads',
      ok: false,
    },
    {
      say: 'Replacing the JSON-file-per-upload decision: upload state now goes into the SQLite table `uploads`, because two writers corrupted a JSON file in the soak.',
    },
    {
      edit: 'src/ingest/store.ts',
      content:
        'export function saveState(db: Db, id: string, state: UploadState) {\n  db.prepare("INSERT OR REPLACE INTO uploads (id, state) VALUES (?, ?)").run(id, JSON.stringify(state));\n}\n',
    },
    { noise: 'tests' },
    { noise: 'reads' },
    { say: 'We no longer log the request body on a 413; it was noise in the logs.' },
    {
      ask: 'Should tabs or spaces be used in the new files?',
      answer: 'Spaces, as the rest of the repository.',
    },
    { noise: 'chatter' },
    { noise: 'tests' },
    {
      say: 'Store and endpoint are done. Should a resumed upload keep its original expiry or get a new one?',
    },
  ],
  facts: [
    { id: 'limit', kind: 'limit', needles: ['25 MiB'] },
    { id: 'tried-busboy', kind: 'tried', needles: ['busboy', 'buffered'] },
    { id: 'ruled-out-s3', kind: 'ruled-out', needles: ['multipart', 'offline'] },
    { id: 'checksum', kind: 'constraint', needles: ['SHA-256'] },
    { id: 'state-sqlite', kind: 'decision', needles: ['SQLite', '`uploads`'] },
    { id: 'errors-json', kind: 'decision', needles: ['JSON problem documents'] },
    { id: 'question-expiry', kind: 'question', needles: ['resumed upload', 'expiry'] },
    { id: 'file-store', kind: 'file', needles: ['src/ingest/store.ts'] },
  ],
  superseded: [{ id: 'json-file', needle: 'JSON file per upload under data/uploads' }],
  tasks: [
    {
      task: 'write the migration that creates the uploads table',
      needs: ['state-sqlite', 'checksum', 'file-store'],
    },
    {
      task: 'add resumable uploads to the ingest endpoint',
      needs: ['limit', 'tried-busboy', 'question-expiry', 'state-sqlite', 'ruled-out-s3'],
    },
    {
      task: 'document the upload limits and storage choices for operators',
      needs: ['limit', 'ruled-out-s3', 'checksum', 'state-sqlite', 'errors-json'],
    },
  ],
};

const scheduler: CorpusSession = {
  name: 'scheduler',
  agent: 'codex',
  prompt: 'Build the job scheduler: concurrency per worker, retries with backoff, where jobs run.',
  topic: ['scheduler', 'job', 'worker', 'retry'],
  beats: [
    {
      read: 'src/jobs/queue.ts',
      content: 'export class Queue {\n  push(job: Job) { this.jobs.push(job); }\n}\n',
    },
    { noise: 'reads' },
    { say: "I'm going with worker threads: jobs run in worker threads, one pool per process." },
    {
      edit: 'src/jobs/pool.ts',
      content: 'export class Pool {\n  private workers = [new Worker("./job.js")];\n}\n',
    },
    { noise: 'tests' },
    { think: 'A job that hangs must not starve the others; bound the concurrency.' },
    { say: 'Each worker runs at most 8 concurrent jobs; the ninth waits in the queue.' },
    { noise: 'chatter' },
    {
      say: 'I tried setInterval ticks for the scheduler and that failed: it drifted by 40 ms per minute under load, so deadlines slipped.',
    },
    {
      run: 'npx vitest run test/jobs/tick.test.ts',
      output: 'FAIL tick.test.ts > fires on the minute\nexpected 60000 to be close to 60040',
      ok: false,
    },
    { noise: 'failing-tests' },
    { say: 'BullMQ is out: it requires Redis, which the product does not ship.' },
    { noise: 'grep' },
    { say: 'Retry backoff doubles from 1 second and caps at 300 seconds.' },
    {
      edit: 'src/jobs/retry.ts',
      content:
        'export function backoff(attempt: number) {\n  return Math.min(300_000, 1000 * 2 ** attempt);\n}\n',
    },
    { noise: 'tests' },
    { think: 'The tests cannot wait real minutes.' },
    { say: 'Replacing the flaky timer mock in the test helper with fake timers.' },
    { say: 'The clock must be injectable, so tests can move time instead of waiting.' },
    { noise: 'chatter' },
    {
      run: 'npx vitest run test/jobs/pool.test.ts',
      output:
        'Error: Database handle cannot be transferred to a worker thread\n    at Pool.run (src/jobs/pool.ts:14)',
      ok: false,
    },
    {
      say: 'Reverting the worker-threads decision: better-sqlite3 handles cannot cross threads, so jobs run in child processes again.',
    },
    {
      edit: 'src/jobs/pool.ts',
      content: 'export class Pool {\n  private children = [fork("./job.js")];\n}\n',
    },
    { noise: 'tests' },
    { noise: 'reads' },
    { noise: 'tests' },
    { noise: 'chatter' },
    { say: "The pool and retries are in place. Do cancelled jobs count against the tenant's daily quota?" },
  ],
  facts: [
    { id: 'limit', kind: 'limit', needles: ['8 concurrent'] },
    { id: 'backoff', kind: 'limit', needles: ['300 seconds'] },
    { id: 'tried-interval', kind: 'tried', needles: ['setInterval', 'drifted'] },
    { id: 'ruled-out-bullmq', kind: 'ruled-out', needles: ['BullMQ', 'Redis'] },
    { id: 'clock', kind: 'constraint', needles: ['injectable'] },
    { id: 'child-processes', kind: 'decision', needles: ['child processes'] },
    { id: 'question-quota', kind: 'question', needles: ['daily quota'] },
    { id: 'file-retry', kind: 'file', needles: ['src/jobs/retry.ts'] },
  ],
  superseded: [{ id: 'worker-threads', needle: 'jobs run in worker threads' }],
  tasks: [
    { task: 'add job cancellation to the scheduler', needs: ['question-quota', 'child-processes', 'limit'] },
    {
      task: 'write tests for retry backoff timing',
      needs: ['backoff', 'clock', 'tried-interval', 'file-retry'],
    },
    {
      task: 'explain in the docs why the scheduler needs no external queue',
      needs: ['ruled-out-bullmq', 'child-processes'],
    },
  ],
};

const results: CorpusSession = {
  name: 'results',
  agent: 'claude',
  prompt: 'Paginate the search results page and highlight the matches.',
  topic: ['results', 'page', 'pagination', 'highlight'],
  beats: [
    {
      read: 'web/src/Results.tsx',
      content: 'export function Results({ hits }: Props) {\n  return <ul>{hits.map(row)}</ul>;\n}\n',
    },
    { noise: 'reads' },
    {
      decide: {
        title: 'Cursor pagination, not offsets',
        text: 'offsets skip rows when new sessions arrive between pages',
      },
    },
    { say: 'Decision: highlight matches on the client with a regex built from the query words.' },
    { noise: 'tests' },
    { say: 'A page shows 50 rows; the API refuses a limit above 200.' },
    { noise: 'chatter' },
    {
      say: 'Virtual scrolling with react-window was tried and abandoned: row heights vary with wrapped snippets, and the list jumped while scrolling.',
    },
    { noise: 'failing-tests' },
    { say: 'Infinite scroll was rejected because users need to link to page 3 of a search.' },
    { noise: 'grep' },
    {
      edit: 'web/src/Results.tsx',
      content:
        'export function Results({ hits, cursor }: Props) {\n  return <Pager cursor={cursor}>{hits.map(row)}</Pager>;\n}\n',
    },
    { say: 'Colours must meet WCAG AA contrast, 4.5:1 for the snippet text on its highlight.' },
    { noise: 'tests' },
    { noise: 'chatter' },
    {
      run: 'npx vitest run web/src/highlight.test.ts',
      output:
        'FAIL highlight.test.ts > highlights «Straße»\nSyntaxError: Invalid regular expression: /(\\p{L/: Unterminated group',
      ok: false,
    },
    {
      say: "We switch from client-side regex highlighting to the server's snippet markers «»: the regex broke on unicode words.",
    },
    {
      edit: 'web/src/highlight.ts',
      content: 'export function marks(snippet: string) {\n  return snippet.split(/«|»/);\n}\n',
    },
    { noise: 'tests' },
    { noise: 'reads' },
    { noise: 'tests' },
    { say: 'Pagination and highlighting work. Should the query stay in the URL after a reload?' },
  ],
  facts: [
    { id: 'limit', kind: 'limit', needles: ['50 rows', '200'] },
    { id: 'cursor', kind: 'decision', needles: ['Cursor pagination'] },
    { id: 'tried-window', kind: 'tried', needles: ['react-window', 'row heights'] },
    { id: 'ruled-out-infinite', kind: 'ruled-out', needles: ['Infinite scroll', 'page 3'] },
    { id: 'contrast', kind: 'constraint', needles: ['4.5:1'] },
    { id: 'markers', kind: 'decision', needles: ['snippet markers'] },
    { id: 'question-url', kind: 'question', needles: ['in the URL'] },
    { id: 'file-highlight', kind: 'file', needles: ['web/src/highlight.ts'] },
  ],
  superseded: [{ id: 'regex', needle: 'highlight matches on the client with a regex' }],
  tasks: [
    {
      task: 'add a page-size selector to the results page',
      needs: ['limit', 'cursor', 'ruled-out-infinite'],
    },
    {
      task: 'restyle the highlighted matches in dark mode',
      needs: ['contrast', 'markers', 'file-highlight'],
    },
    {
      task: 'keep the results position when the user reloads',
      needs: ['question-url', 'cursor', 'tried-window'],
    },
  ],
};

const sync: CorpusSession = {
  name: 'sync',
  agent: 'codex',
  prompt: 'Design how machines sync their event logs through the shared store.',
  topic: ['sync', 'batch', 'events', 'machine'],
  beats: [
    {
      read: 'src/sync/relay.ts',
      content: 'export async function relay(events: Event[]) {\n  await store.append(events);\n}\n',
    },
    { noise: 'reads' },
    { say: 'We decided conflicts are resolved last-writer-wins by timestamp.' },
    { noise: 'tests' },
    { say: 'A batch holds at most 500 events or 1 MB, whichever comes first.' },
    {
      edit: 'src/sync/batch.ts',
      content: 'export const MAX_BATCH_EVENTS = 500;\nexport const MAX_BATCH_BYTES = 1_000_000;\n',
    },
    { noise: 'chatter' },
    {
      think:
        'LISTEN/NOTIFY looked ideal for the change feed, but we tried it and it failed: Postgres drops payloads over 8000 bytes.',
    },
    {
      run: 'node scripts/feed-probe.mjs',
      output: 'ERROR:  payload string too long\nnotify dropped 37 of 120 batches',
      ok: false,
    },
    { noise: 'failing-tests' },
    { say: 'CRDTs are ruled out: the data is append-only, so a sequence number per machine is enough.' },
    { noise: 'grep' },
    {
      say: 'Clock skew of up to 2 s between machines must not reorder events: order by machine sequence, never by wall time.',
    },
    { noise: 'tests' },
    { noise: 'chatter' },
    {
      run: 'npm run soak -- sync',
      output: "soak: task 12 edited on alpha and beta\nlost update: beta's title overwritten",
      ok: false,
    },
    {
      say: 'Superseding the last-writer-wins rule: a conflict now keeps both versions and asks the user, since last-writer-wins lost a task edit in the soak.',
    },
    {
      edit: 'src/sync/conflict.ts',
      content:
        'export function resolve(a: Version, b: Version): Conflict {\n  return { both: [a, b], ask: true };\n}\n',
    },
    { noise: 'tests' },
    { noise: 'reads' },
    { noise: 'tests' },
    { say: 'Batches and conflicts are done. Who prunes the shared log once every machine has read it?' },
  ],
  facts: [
    { id: 'limit', kind: 'limit', needles: ['500 events', '1 MB'] },
    { id: 'tried-notify', kind: 'tried', needles: ['LISTEN/NOTIFY', '8000 bytes'] },
    { id: 'ruled-out-crdt', kind: 'ruled-out', needles: ['CRDT', 'append-only'] },
    { id: 'skew', kind: 'constraint', needles: ['2 s', 'skew'] },
    { id: 'both-versions', kind: 'decision', needles: ['keeps both versions'] },
    { id: 'question-prune', kind: 'question', needles: ['prunes the shared log'] },
    { id: 'file-batch', kind: 'file', needles: ['src/sync/batch.ts'] },
  ],
  superseded: [{ id: 'lww', needle: 'resolved last-writer-wins by timestamp' }],
  tasks: [
    { task: 'implement the change feed between machines', needs: ['tried-notify', 'limit', 'skew'] },
    {
      task: 'add the conflict screen for tasks edited on two machines',
      needs: ['both-versions', 'ruled-out-crdt'],
    },
    { task: 'write the pruning job for the shared log', needs: ['question-prune', 'limit', 'file-batch'] },
  ],
};

export const RETENTION_CORPUS: readonly CorpusSession[] = [ingest, scheduler, results, sync];
