import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ArgumentMetadata, ValidationPipe } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, ValidateNested } from 'class-validator';
import { ChannelAnalyticsQueryDto } from '../analytics/dto/channel-analytics.dto';
import { ListChannelsQueryDto } from '../channels/dto/list-channels.query.dto';
import { ListEventsQueryDto } from '../events/dto/list-events.query.dto';
import { FreeSlotsQueryDto } from '../posting-schedules/dto/free-slots.dto';
import { ListWorkspacesQueryDto, UsageQueryDto } from '../platform/dto/workspaces.dto';
import { ListPostsQueryDto } from '../posts/dto/list-posts.query.dto';
import { PageQueryDto } from './pagination/pagination';
import { compileQueryCheck } from './query-check.compiler';
import { createValidationPipe } from './validation.pipe';

/** Every class a controller takes as its @Query() (checked against the controllers' source below). */
const QUERY_DTOS: Array<new () => object> = [
  PageQueryDto,
  ListPostsQueryDto,
  ListChannelsQueryDto,
  ListEventsQueryDto,
  FreeSlotsQueryDto,
  ChannelAnalyticsQueryDto,
  ListWorkspacesQueryDto,
  UsageQueryDto,
];

/** Values a client may send for a field: valid, invalid and borderline for every rule the DTOs use. */
const VALUES: unknown[] = [
  '',
  ' ',
  '0',
  '1',
  '20',
  '100',
  '101',
  '-1',
  '1.5',
  ' 5',
  '5 ',
  '1e2',
  '0x10',
  'Infinity',
  'NaN',
  'abc',
  'x'.repeat(255),
  'x'.repeat(256),
  'x'.repeat(513),
  '7d1f7c4e-8a5b-4a8e-9d8e-2f4b6a1c3e5d',
  '7d1f7c4e-8a5b-4a8e-9d8e-2f4b6a1c3e5',
  '2026-11-01',
  '2026-13-01',
  '2026-11-01T10:00:00Z',
  '2026-11-01T10:00:00+01:00',
  '2026-11-01 10:00:00',
  '2026-02-30T10:00:00Z',
  'eyJ0IjoiMjAyNi0xMS0wMVQxMDowMDowMC4wMDBaIiwiaSI6IjEifQ',
  ['1', '2'],
];

/** A small deterministic generator (mulberry32), so a failure names a query that can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The field names of a DTO and the values its @IsIn rules list (so enum members are tried too). */
function fieldsOf(dto: object): { names: string[]; listed: unknown[] } {
  const { getMetadataStorage } = jest.requireActual<typeof import('class-validator')>('class-validator');
  const rules = getMetadataStorage().getTargetValidationMetadatas(dto.constructor, '', false, false, undefined);
  const names = [...new Set(rules.map((r) => r.propertyName))];
  const listed = rules.flatMap((r) => (r.name === 'isIn' ? (r.constraints[0] as unknown[]) : []));
  return { names, listed };
}

async function viaPipe(pipe: ValidationPipe, metatype: new () => object, query: object): Promise<unknown> {
  const metadata: ArgumentMetadata = { type: 'query', metatype };
  try {
    return { ok: await ValidationPipe.prototype.transform.call(pipe, { ...query }, metadata) };
  } catch (err) {
    return { error: err };
  }
}

describe('compileQueryCheck', () => {
  const pipe = createValidationPipe();

  it('compiles every query DTO of the API', () => {
    for (const dto of QUERY_DTOS) expect([dto.name, compileQueryCheck(dto) !== null]).toEqual([dto.name, true]);
  });

  it.each(QUERY_DTOS.map((dto) => [dto.name, dto] as const))(
    '%s: accepts only what the pipe accepts, and builds the same DTO',
    async (_name, dto) => {
      const check = compileQueryCheck(dto)!;
      const { names, listed } = fieldsOf(new dto());
      const values = [...VALUES, ...listed.map(String)];
      const next = random(dto.name.length * 7919);
      const queries: Array<Record<string, unknown>> = [{}, { unknownField: '1' }];
      for (const name of names) for (const value of values) queries.push({ [name]: value });
      for (let i = 0; i < 400; i++) {
        const query: Record<string, unknown> = {};
        for (const name of names) if (next() < 0.6) query[name] = values[Math.floor(next() * values.length)];
        queries.push(query);
      }
      let accepted = 0;
      let refused = 0;
      for (const query of queries) {
        const fast = check(Object.freeze({ ...query }));
        const slow = (await viaPipe(pipe, dto, query)) as { ok?: unknown; error?: unknown };
        if (fast === null) {
          if ('error' in slow) refused++;
          continue;
        }
        accepted++;
        // Said yes: the pipe says yes too, with an equal DTO of the same class.
        expect({ query, result: slow.ok }).toStrictEqual({ query, result: fast });
      }
      // The check decides the common case itself; refusals are the pipe's (whose error is the answer).
      expect(accepted).toBeGreaterThan(queries.length / 20);
      expect(refused).toBeGreaterThan(queries.length / 20);
    },
  );

  it('is not compiled for what it does not reproduce exactly (nested rules, transformations)', () => {
    class Nested {
      @ValidateNested()
      @Type(() => PageQueryDto)
      page?: PageQueryDto;
    }
    class Dated {
      @IsOptional()
      @Type(() => Date)
      at?: Date;
    }
    class Each {
      @IsOptional()
      @IsInt({ each: true })
      ids?: number[];
    }
    class Grouped {
      @IsString({ groups: ['admin'] })
      name?: string;
    }
    for (const cls of [Nested, Dated, Each, Grouped] as Array<new () => object>)
      expect([cls.name, compileQueryCheck(cls)]).toEqual([cls.name, null]);
  });

  it('leaves a refused query to the pipe, whose error names the field', async () => {
    const check = compileQueryCheck(PageQueryDto)!;
    expect(check({ limit: '101' })).toBeNull();
    expect(check({ limit: '10', extra: 'x' })).toBeNull();
    expect(check({ limit: ['1', '2'] })).toBeNull();
    await expect(pipe.transform({ limit: '101' }, { type: 'query', metatype: PageQueryDto })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [{ field: 'limit', message: 'must be at most 100' }],
    });
    await expect(pipe.transform({ limit: '7' }, { type: 'query', metatype: PageQueryDto })).resolves.toStrictEqual(
      Object.assign(new PageQueryDto(), { limit: 7 }),
    );
  });

  it('lists every class a controller takes as its @Query()', () => {
    const taken = new Set<string>();
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir)) {
        const path = join(dir, entry);
        if (statSync(path).isDirectory()) walk(path);
        else if (path.endsWith('.controller.ts')) {
          for (const m of readFileSync(path, 'utf8').matchAll(/@Query\(\)\s+\w+:\s+(\w+)/g)) taken.add(m[1]);
        }
      }
    };
    walk(join(__dirname, '..'));
    expect([...taken].sort()).toEqual(QUERY_DTOS.map((d) => d.name).sort());
  });
});
