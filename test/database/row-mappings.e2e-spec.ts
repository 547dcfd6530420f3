import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { DataSource, EntityTarget, ObjectLiteral } from 'typeorm';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import { PART_COLUMNS, POST_COLUMNS, TARGET_COLUMNS, toPart, toPost, toTarget } from '../../src/posts/post-rows';
import { PostTargetPart } from '../../src/posts/post-target-part.entity';
import { AnalyticsSnapshot } from '../../src/analytics/analytics-snapshot.entity';
import {
  FIGURES_UPDATE_COLUMNS,
  METRICS_TARGET_COLUMNS,
  SNAPSHOT_INSERT_COLUMNS,
  STORED_FIGURES_COLUMNS,
  toMetricsTarget,
  toStoredFigures,
} from '../../src/analytics/target-metrics.store';
import { TargetMetrics } from '../../src/analytics/target-metrics.entity';
import { Channel } from '../../src/channels/channel.entity';
import { CHANNEL_COLUMNS, toChannel } from '../../src/channels/channel-rows';
import { EventRecord } from '../../src/events/event.entity';
import {
  EVENT_BODY_COLUMNS,
  OUTBOX_EVENT_COLUMNS,
  REPLAYED_EVENT_COLUMNS,
  toEventBody,
  toOutboxEvent,
  toReplayedEvent,
} from '../../src/events/event-outbox.store';
import { EVENT_INSERT_COLUMNS } from '../../src/events/events.store';
import { PostTarget } from '../../src/posts/post-target.entity';
import {
  PUBLISHED_REF_COLUMNS,
  PUBLISHED_TARGET_COLUMNS,
  toPublishedRef,
  toPublishedTarget,
} from '../../src/posts/published-targets.store';
import { Post } from '../../src/posts/post.entity';
import { PostQueueSlot } from '../../src/posts/post-queue-slot.entity';
import { QUEUE_SLOT_COLUMNS } from '../../src/posts/post-queue-slots.store';
import { IdempotencyRecord } from '../../src/idempotency/idempotency-record.entity';
import {
  ANSWER_INSERT_COLUMNS,
  PLAIN_ANSWER_COLUMNS,
  STORED_ANSWER_COLUMNS,
  toPlainAnswer,
  toStoredAnswer,
} from '../../src/idempotency/idempotency-keys.store';
import { ScheduledJob } from '../../src/scheduling/scheduled-job.entity';
import { JOB_END_COLUMNS, JOB_START_COLUMNS } from '../../src/scheduling/scheduled-jobs.store';
import { ApiKey } from '../../src/auth/api-key.entity';
import { LISTED_KEY_COLUMNS, toListedKey } from '../../src/auth/api-keys.store';
import { OAuthState } from '../../src/oauth/oauth-state.entity';
import { CONSUMED_STATE_COLUMNS, toConsumedState } from '../../src/oauth/oauth.store';
import { WebhookDelivery } from '../../src/webhooks/webhook-delivery.entity';
import {
  DELIVERY_INSERT_COLUMNS,
  QUEUED_DELIVERY_COLUMNS,
  RELAYED_DELIVERY_COLUMNS,
  RESET_DELIVERY_COLUMNS,
  toQueuedDelivery,
  toRelayedDelivery,
  toResetDelivery,
} from '../../src/webhooks/webhook-delivery-log.store';
import { DUE_TARGET_COLUMNS, toDueTarget } from '../../src/posts/publishing.store';
import { MediaItem } from '../../src/media/media-item.entity';
import { IMPORT_PLAN_COLUMNS, PENDING_IMPORT_COLUMNS, toPendingImport } from '../../src/media/media-items.store';
import { WebhookDeliveryAttempt } from '../../src/webhooks/webhook-delivery-attempt.entity';
import { ATTEMPT_INSERT_COLUMNS, CLAIMED_DELIVERY_COLUMNS } from '../../src/webhooks/webhook-delivery.store';
import { PostTargetCheckpoint } from '../../src/posts/post-target-checkpoint.entity';
import { CHECKPOINT_COLUMNS } from '../../src/posts/post-target-checkpoints.store';
import { MULTIPART_COLUMNS } from '../../src/media/storage/media-multipart.store';
import { TestEnvironment } from '../support/test-app';

const SRC = join(__dirname, '..', '..', 'src');

/** Words of our SQL that are neither tables nor columns: functions, types, literals (keywords are in capitals). */
const SQL_WORDS = new Set(
  (
    'array_append array_remove bool_and bool_or cardinality count hashtext hashtextextended json_agg json_object_agg ' +
    'jsonb_build_object jsonb_build_array jsonb_to_recordset make_interval max now pg_advisory_lock ' +
    'pg_advisory_unlock pg_advisory_xact_lock pg_notify pg_try_advisory_lock pg_try_advisory_xact_lock ' +
    'row_to_json sum to_char unnest set_config greatest coalesce extract epoch secs days ctid bigint boolean ' +
    'double precision int integer interval jsonb text timestamptz uuid varchar false true'
  ).split(' '),
);

/** Every `*.store.ts` of src/, as [path, text without comments]. */
function storeSources(dir = SRC): Array<[string, string]> {
  return readdirSync(dir).flatMap((name): Array<[string, string]> => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return storeSources(path);
    if (!name.endsWith('.store.ts')) return [];
    const text = readFileSync(path, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, ' ')
      .replace(/(^|[^:'"`\\])\/\/[^\n]*/g, '$1');
    return [[relative(SRC, path), text]];
  });
}

/**
 * The identifiers of the SQL statements in a source text (string literals with SQL in capitals) that are
 * neither a table nor a column of a table the statement names, a word of SQL_WORDS, nor an alias the
 * statement declares (`AS x`, `x AS (`, `FROM table x`, `(...) x`, `AS x(a, b)`, a query builder's alias).
 * Interpolated parts (`${...}`) are
 * left out: they are the column lists checked above.
 */
function unknownSqlNames(text: string, columnsOf: Map<string, Set<string>>): string[] {
  const unknown: string[] = [];
  const literals = [...text.matchAll(/`([^`]*)`|'([^'\n]*)'/g)].map((m) => m[1] ?? m[2] ?? '');
  for (const literal of literals.filter((t) => /\b(SELECT|UPDATE|INSERT|DELETE|WITH)\b/.test(t))) {
    const sql = literal.replace(/\$\{[^}]*\}/g, ' ').replace(/'[^']*'/g, ' ');
    const aliases = new Set<string>();
    for (const m of sql.matchAll(/\bAS\s+([a-z_][a-z0-9_]*)(?:\s*\(([^)]*)\))?/g)) {
      aliases.add(m[1]);
      for (const part of (m[2] ?? '').split(',')) aliases.add(part.trim().split(/\s+/)[0]);
    }
    for (const m of sql.matchAll(/\b([a-z_][a-z0-9_]*)\s+AS\s*\(/g)) aliases.add(m[1]);
    for (const m of sql.matchAll(/\b(?:FROM|JOIN|UPDATE|INTO)\s+[a-z_][a-z0-9_]*\s+(?:AS\s+)?([a-z_][a-z0-9_]*)/g)) {
      aliases.add(m[1]);
    }
    // A subquery's alias, and the query builder's aliases of the file (fragments refer to them).
    for (const m of sql.matchAll(/\)\s+(?:AS\s+)?([a-z_][a-z0-9_]*)/g)) aliases.add(m[1]);
    for (const m of text.matchAll(/createQueryBuilder\('([a-z_][a-z0-9_]*)'\)/g)) aliases.add(m[1]);
    const names = new Set([...sql.matchAll(/\b[a-z_][a-z0-9_]*\b/g)].map((m) => m[0]));
    const tables = [...names].filter((n) => columnsOf.has(n));
    const columns = new Set(tables.flatMap((t) => [...columnsOf.get(t)!]));
    for (const name of names) {
      if (!columnsOf.has(name) && !columns.has(name) && !SQL_WORDS.has(name) && !aliases.has(name)) unknown.push(name);
    }
  }
  return unknown;
}

/**
 * Raw SQL on hot paths names columns and maps rows by hand (docs/adr/0010). These checks hold the
 * column lists and mappers to the entity metadata, so renaming a column or property breaks a test
 * instead of production.
 */
describe('raw-row mappings match the entity metadata', () => {
  const env = new TestEnvironment();
  let ds: DataSource;

  beforeAll(async () => {
    await env.create();
    ds = await new DataSource(buildDataSourceOptions(env.databaseUrl, 2)).initialize();
  });
  afterAll(async () => {
    await ds?.destroy();
    await env.destroy();
  });

  function expectMapping<T extends ObjectLiteral>(
    entity: EntityTarget<T>,
    columnList: string,
    map: (row: Record<string, unknown>) => T,
  ): void {
    const columns = ds.getMetadata(entity).columns.filter((c) => !c.relationMetadata || c.referencedColumn);
    const listed = columnList.split(',').map((c) => c.trim());
    // Every column of the table, each once, by its database name.
    expect([...listed].sort()).toEqual(columns.map((c) => c.databaseName).sort());
    // The mapper puts each column into the property the entity declares for it.
    const row = Object.fromEntries(columns.map((c, i) => [c.databaseName, `value-${i}`]));
    const mapped = map(row) as Record<string, unknown>;
    for (const [i, c] of columns.entries())
      expect({ [c.propertyName]: mapped[c.propertyName] }).toEqual({ [c.propertyName]: `value-${i}` });
  }

  /**
   * For reads of some columns: each listed column is a column of the entity, listed once, and the
   * mapper puts it into the property the entity declares for it (and nothing else into the result).
   */
  function expectSubsetMapping<T extends ObjectLiteral>(
    entity: EntityTarget<T>,
    columnList: string,
    map: (row: Record<string, unknown>) => Partial<T>,
  ): void {
    const byName = new Map(ds.getMetadata(entity).columns.map((c) => [c.databaseName, c]));
    const listed = columnList.split(',').map((c) => c.trim());
    expect(new Set(listed).size).toBe(listed.length);
    for (const name of listed) expect({ [name]: byName.has(name) }).toEqual({ [name]: true });
    const row = Object.fromEntries(listed.map((name, i) => [name, `value-${i}`]));
    const mapped = map(row) as Record<string, unknown>;
    expect(Object.keys(mapped).sort()).toEqual(listed.map((name) => byName.get(name)!.propertyName).sort());
    for (const [i, name] of listed.entries()) {
      const property = byName.get(name)!.propertyName;
      expect({ [property]: mapped[property] }).toEqual({ [property]: `value-${i}` });
    }
  }

  /** For writes: each listed column is a column of the entity, listed once. */
  function expectColumns(entity: EntityTarget<ObjectLiteral>, columnList: string): void {
    const names = new Set(ds.getMetadata(entity).columns.map((c) => c.databaseName));
    const listed = columnList.split(',').map((c) => c.trim());
    expect(new Set(listed).size).toBe(listed.length);
    for (const name of listed) expect({ [name]: names.has(name) }).toEqual({ [name]: true });
  }

  it('posts: POST_COLUMNS and toPost', () => expectMapping(Post, POST_COLUMNS, toPost));
  it('post_queue_slots: QUEUE_SLOT_COLUMNS are its columns (PostQueueSlotsStore.claim)', () =>
    expectColumns(PostQueueSlot, QUEUE_SLOT_COLUMNS));
  it('post_targets: TARGET_COLUMNS and toTarget', () => expectMapping(PostTarget, TARGET_COLUMNS, toTarget));
  it('post_target_parts: PART_COLUMNS and toPart', () => expectMapping(PostTargetPart, PART_COLUMNS, toPart));

  it('channels: CHANNEL_COLUMNS and toChannel (ChannelsService.findByIds)', () =>
    expectMapping(Channel, CHANNEL_COLUMNS, toChannel));

  it('post_targets: DUE_TARGET_COLUMNS and toDueTarget (PublishingStore, the reconciler)', () =>
    expectSubsetMapping(PostTarget, DUE_TARGET_COLUMNS, toDueTarget));

  describe('posts: PublishedTargetsStore (read by analytics)', () => {
    it('PUBLISHED_TARGET_COLUMNS and toPublishedTarget', () =>
      expectSubsetMapping(PostTarget, PUBLISHED_TARGET_COLUMNS, toPublishedTarget));
    it('PUBLISHED_REF_COLUMNS and toPublishedRef', () =>
      expectSubsetMapping(PostTarget, PUBLISHED_REF_COLUMNS, toPublishedRef));
  });

  describe('analytics: TargetMetricsStore', () => {
    it('METRICS_TARGET_COLUMNS and toMetricsTarget', () =>
      expectSubsetMapping(TargetMetrics, METRICS_TARGET_COLUMNS, toMetricsTarget));
    it('STORED_FIGURES_COLUMNS and toStoredFigures', () =>
      expectSubsetMapping(TargetMetrics, STORED_FIGURES_COLUMNS, toStoredFigures));
    it('FIGURES_UPDATE_COLUMNS are target_metrics columns', () => expectColumns(TargetMetrics, FIGURES_UPDATE_COLUMNS));
    it('SNAPSHOT_INSERT_COLUMNS are analytics_snapshots columns', () =>
      expectColumns(AnalyticsSnapshot, SNAPSHOT_INSERT_COLUMNS));
  });

  describe('events: EventOutboxStore (read by webhooks)', () => {
    it('OUTBOX_EVENT_COLUMNS and toOutboxEvent', () =>
      expectSubsetMapping(EventRecord, OUTBOX_EVENT_COLUMNS, toOutboxEvent));
    it('EVENT_BODY_COLUMNS and toEventBody', () => expectSubsetMapping(EventRecord, EVENT_BODY_COLUMNS, toEventBody));
    it('REPLAYED_EVENT_COLUMNS and toReplayedEvent', () =>
      expectSubsetMapping(EventRecord, REPLAYED_EVENT_COLUMNS, toReplayedEvent));
  });

  describe('events: EventsStore', () => {
    it('EVENT_INSERT_COLUMNS are events columns', () => expectColumns(EventRecord, EVENT_INSERT_COLUMNS));
  });

  describe('idempotency: IdempotencyKeysStore', () => {
    it('STORED_ANSWER_COLUMNS and toStoredAnswer', () =>
      expectSubsetMapping(IdempotencyRecord, STORED_ANSWER_COLUMNS, toStoredAnswer));
    it('PLAIN_ANSWER_COLUMNS and toPlainAnswer', () =>
      expectSubsetMapping(IdempotencyRecord, PLAIN_ANSWER_COLUMNS, toPlainAnswer));
    it('ANSWER_INSERT_COLUMNS are idempotency_keys columns', () =>
      expectColumns(IdempotencyRecord, ANSWER_INSERT_COLUMNS));
  });

  describe('scheduling: ScheduledJobsStore', () => {
    it('JOB_START_COLUMNS are scheduled_jobs columns', () => expectColumns(ScheduledJob, JOB_START_COLUMNS));
    it('JOB_END_COLUMNS are scheduled_jobs columns', () => expectColumns(ScheduledJob, JOB_END_COLUMNS));
  });

  describe('auth: ApiKeysStore', () => {
    it('LISTED_KEY_COLUMNS and toListedKey', () => expectSubsetMapping(ApiKey, LISTED_KEY_COLUMNS, toListedKey));
  });

  describe('oauth: OAuthStore', () => {
    it('CONSUMED_STATE_COLUMNS and toConsumedState', () =>
      expectSubsetMapping(OAuthState, CONSUMED_STATE_COLUMNS, toConsumedState));
  });

  describe('webhooks: WebhookDeliveryLogStore', () => {
    it('DELIVERY_INSERT_COLUMNS are webhook_deliveries columns', () =>
      expectColumns(WebhookDelivery, DELIVERY_INSERT_COLUMNS));
    it('QUEUED_DELIVERY_COLUMNS and toQueuedDelivery', () =>
      expectSubsetMapping(WebhookDelivery, QUEUED_DELIVERY_COLUMNS, toQueuedDelivery));
    it('RESET_DELIVERY_COLUMNS and toResetDelivery', () =>
      expectSubsetMapping(WebhookDelivery, RESET_DELIVERY_COLUMNS, toResetDelivery));
    it('RELAYED_DELIVERY_COLUMNS and toRelayedDelivery', () =>
      expectSubsetMapping(WebhookDelivery, RELAYED_DELIVERY_COLUMNS, toRelayedDelivery));
  });

  describe('media: MediaItemsStore', () => {
    it('PENDING_IMPORT_COLUMNS and toPendingImport', () =>
      expectSubsetMapping(MediaItem, PENDING_IMPORT_COLUMNS, toPendingImport));
    it('IMPORT_PLAN_COLUMNS are media columns', () => expectColumns(MediaItem, IMPORT_PLAN_COLUMNS));
  });

  describe('stores of the delivery processor, publish checkpoints and S3 multipart bookkeeping', () => {
    it('ATTEMPT_INSERT_COLUMNS are webhook_delivery_attempts columns', () =>
      expectColumns(WebhookDeliveryAttempt, ATTEMPT_INSERT_COLUMNS));
    it('CLAIMED_DELIVERY_COLUMNS are webhook_deliveries columns', () =>
      expectColumns(WebhookDelivery, CLAIMED_DELIVERY_COLUMNS));
    it('CHECKPOINT_COLUMNS are post_target_checkpoints columns', () =>
      expectColumns(PostTargetCheckpoint, CHECKPOINT_COLUMNS));
    it('MULTIPART_COLUMNS are media columns', () => expectColumns(MediaItem, MULTIPART_COLUMNS));
  });

  describe("every name in the stores' SQL", () => {
    const columnsOf = () =>
      new Map(ds.entityMetadatas.map((m) => [m.tableName, new Set(m.columns.map((c) => c.databaseName))]));

    it('is a table, a column of a table its statement names, a SQL word or an alias the statement declares', () => {
      const stores = storeSources();
      expect(stores.length).toBeGreaterThanOrEqual(20);
      const unknown = stores.flatMap(([file, text]) => unknownSqlNames(text, columnsOf()).map((n) => `${file}: ${n}`));
      expect(unknown).toEqual([]);
    });

    it('tells a misspelt column, or one of another table, from the real ones', () => {
      const text =
        'const a = `SELECT id, workspace_idd FROM events WHERE dispatched_at IS NULL`;\n' +
        "const b = `UPDATE channels c SET status = 'active' FROM unnest($1::uuid[]) AS r(id) WHERE c.mime_type = r.id`;\n" +
        "const c = 'SELECT pg_advisory_lock($1)';";
      expect(unknownSqlNames(text, columnsOf())).toEqual(['workspace_idd', 'mime_type']);
    });
  });

  it('a renamed column fails the check', () => {
    expect(() => expectSubsetMapping(PostTarget, 'id, platform_post_ref', toPublishedRef)).toThrow();
    expect(() =>
      expectSubsetMapping(PostTarget, PUBLISHED_REF_COLUMNS, (r) => ({
        ...toPublishedRef(r),
        platformPostId: r.url as string,
      })),
    ).toThrow();
  });
});
