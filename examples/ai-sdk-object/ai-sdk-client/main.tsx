/**
 * The page on the AI SDK's own `useObject` (`@ai-sdk/react` 4 with `ai` 7; 3 with `ai` 6, where it
 * is `experimental_useObject`, which 4 keeps as an alias): the reference argstream's page is
 * compared with. It re-parses the whole text at every chunk (`parsePartialJson`).
 */
import { experimental_useObject as useObject } from '@ai-sdk/react';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from '../recipe-view.tsx';

createRoot(document.getElementById('app')!).render(
  <StrictMode>
    <App useObject={useObject} setup={`ai ${__RECIPE_AI_MAJOR__} · @ai-sdk/react ${__RECIPE_AI_MAJOR__ === 6 ? 3 : 4} · the AI SDK's useObject`} />
  </StrictMode>,
);
