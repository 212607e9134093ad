/**
 * The object the example streams: a recipe. The server gives it to the model
 * (`Output.object({ schema: recipe })`), the page to its `useObject` hook (`schema: recipe`): it
 * types the object, and validates the complete one for `onFinish`.
 */
import * as z from 'zod';

export const recipe = z.object({
  title: z.string().describe("the dish's name"),
  servings: z.number().describe('how many it feeds'),
  vegetarian: z.boolean(),
  ingredients: z.array(z.object({ name: z.string(), amount: z.string() })),
  steps: z.array(z.string()).describe('one sentence each, in order'),
});

export type Recipe = z.infer<typeof recipe>;

/** What the page POSTs: the dish to write a recipe for. */
export interface RecipeRequest {
  readonly dish: string;
}
