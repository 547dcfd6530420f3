import { nonConformance } from '../support/response-conformance';

/**
 * For every e2e spec (jest.config.js `setupFilesAfterEnv`): each answer of the service a spec's
 * `fetch` receives is checked against docs/openapi.json (test/support/response-conformance.ts), and a
 * test that received an answer the document does not describe fails after it ran.
 */
const violations: string[] = [];
const pending = new Set<Promise<void>>();

const realFetch = globalThis.fetch;
globalThis.fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
  const res = await realFetch(input, init);
  try {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    const checking = nonConformance(method, url, res).then(
      (problem) => void (problem && violations.push(problem)),
      (err: unknown) => void violations.push(`${method} ${url.pathname}: could not be checked: ${String(err)}`),
    );
    pending.add(checking);
    void checking.finally(() => pending.delete(checking));
  } catch {
    // Not a URL we can read: not one of our answers.
  }
  return res;
};

afterEach(async () => {
  await Promise.all([...pending]);
  const found = violations.splice(0);
  if (found.length) {
    throw new Error(`Answers that do not match docs/openapi.json:\n${[...new Set(found)].join('\n')}`);
  }
});
