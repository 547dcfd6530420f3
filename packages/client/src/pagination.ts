/** One page of a list: its items and the cursor of the next page (null on the last). */
export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

/**
 * Every item of a list, page after page, fetched lazily as the loop advances:
 * `for await (const post of sp.posts.iterate({ status: 'published' })) ...`.
 * `pages()` walks the same list a page at a time.
 */
export class PageIterator<T> implements AsyncIterable<T> {
  constructor(private readonly fetchPage: (cursor: string | undefined) => Promise<Page<T>>) {}

  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    let cursor: string | undefined;
    do {
      const page = await this.fetchPage(cursor);
      yield page;
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.data;
  }

  /** Collects every item (mind the size of the list). */
  async toArray(): Promise<T[]> {
    const all: T[] = [];
    for await (const page of this.pages()) all.push(...page.data);
    return all;
  }
}
