/**
 * The page, whichever `useObject` it is given: the AI SDK's (`@ai-sdk/react`) or argstream's
 * (`argstream/react`). Both take the same options and return the same helpers — `UseObject` below
 * is that shape, and each page's main.tsx passes its hook as it is, so the type-check of the two
 * pages checks that argstream's hook is a drop-in for the AI SDK's.
 *
 * It shows the recipe as it streams (the title, each ingredient, each step), the hook's
 * `isLoading` and `error`, Send, Stop and Clear, and what `onFinish` received. For the tests (and
 * the curious, in the console), it also keeps every object it rendered on `window.objectStates`, as
 * JSON.
 */
import type { DeepPartial } from 'ai';
import { useEffect, useState, type FormEvent } from 'react';
import { recipe, type Recipe, type RecipeRequest } from './schema.ts';

/** The `useObject` hook as this page uses it: what both hooks accept and return. */
export type UseObject = (options: {
  api: string;
  schema: typeof recipe;
  onFinish?: (event: { object: Recipe | undefined; error: Error | undefined }) => void;
}) => {
  object: DeepPartial<Recipe> | undefined;
  submit: (input: RecipeRequest) => void;
  isLoading: boolean;
  error: Error | undefined;
  stop: () => void;
  clear: () => void;
};

declare global {
  interface Window {
    /** Every object the page rendered, as JSON, in order (`undefined` as `null`). */
    objectStates?: string[];
  }
}

function RecipeCard({ useObject }: { useObject: UseObject }) {
  const [finished, setFinished] = useState<string | undefined>(undefined);
  const { object, submit, isLoading, error, stop, clear } = useObject({
    api: '/api/recipe',
    schema: recipe,
    onFinish: ({ object, error }) => setFinished(JSON.stringify({ object: object ?? null, error: error === undefined ? null : `${error.name}: ${error.message}` })),
  });

  useEffect(() => {
    (window.objectStates ??= []).push(JSON.stringify(object ?? null));
  }, [object]);

  const send = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setFinished(undefined);
    submit({ dish: String(new FormData(event.currentTarget).get('dish') ?? '') });
  };

  const code = (error as { code?: unknown } | undefined)?.code;
  return (
    <>
      <p id="status" data-status={isLoading ? 'loading' : 'idle'}>
        {isLoading ? 'cooking…' : 'ready'}
      </p>
      {error !== undefined && (
        <p id="error" role="alert" data-code={typeof code === 'string' ? code : undefined}>
          {error.name}: {error.message}
        </p>
      )}
      <form id="ask" onSubmit={send}>
        <input name="dish" id="dish" defaultValue="crêpes" aria-label="dish" />
        <button type="submit" disabled={isLoading}>
          Send
        </button>
        <button type="button" id="stop" onClick={stop} disabled={!isLoading}>
          Stop
        </button>
        <button type="button" id="clear" onClick={clear}>
          Clear
        </button>
      </form>
      <article id="recipe">
        <h2 id="title">{object?.title}</h2>
        {object?.servings !== undefined && <p id="servings">serves {object.servings}</p>}
        {object?.vegetarian !== undefined && <p id="vegetarian">{object.vegetarian ? 'vegetarian' : 'not vegetarian'}</p>}
        <ul id="ingredients">
          {object?.ingredients?.map((ingredient, i) => (
            <li key={i}>
              {ingredient?.amount} {ingredient?.name}
            </li>
          ))}
        </ul>
        <ol id="steps">{object?.steps?.map((step, i) => <li key={i}>{step}</li>)}</ol>
      </article>
      <pre id="object">{JSON.stringify(object ?? null)}</pre>
      {finished !== undefined && <pre id="finished">{finished}</pre>}
    </>
  );
}

/** The page: a setup line, and the recipe while it is shown (Hide unmounts it: its request ends). */
export function App({ useObject, setup }: { useObject: UseObject; setup: string }) {
  const [shown, setShown] = useState(true);
  return (
    <main>
      <h1>A recipe, streamed with useObject</h1>
      <p id="versions">{setup}</p>
      <button type="button" id="toggle" onClick={() => setShown(!shown)}>
        {shown ? 'Hide' : 'Show'}
      </button>
      {shown && <RecipeCard useObject={useObject} />}
    </main>
  );
}
