/**
 * A response body as tests read it. `any` on purpose: assertions walk arbitrary JSON and jest's
 * matchers check the shape, which a static type could only restate.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export async function bodyOf(res: Response): Promise<Json> {
  return res.json();
}
