import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildOpenApiDocument, EXAMPLE_SERVERS } from '../../src/docs/openapi';
import { undocumentedRules } from '../../src/docs/request-schemas';
import { TestApp } from '../support/test-app';

describe('committed OpenAPI document', () => {
  it('matches what the code generates (run `npm run openapi` after an API change)', async () => {
    const t = await TestApp.start({ role: 'api' });
    try {
      const generated = JSON.parse(JSON.stringify(buildOpenApiDocument(t.app, EXAMPLE_SERVERS)));
      const committed = JSON.parse(readFileSync(join(__dirname, '..', '..', 'docs', 'openapi.json'), 'utf8'));
      expect(committed).toEqual(generated);
      // Every request field the service validates is in the document, and every documented one validated.
      expect(undocumentedRules(committed)).toEqual([]);
    } finally {
      await t.close();
    }
  });
});
