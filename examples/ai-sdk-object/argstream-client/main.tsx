/**
 * The same page on argstream's `useObject`: the one line that differs from ../ai-sdk-client/ is
 * the import. The response is the same (the AI SDK server's text stream); it is parsed once, as
 * it arrives.
 */
import { useObject } from 'argstream/react';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from '../recipe-view.tsx';

createRoot(document.getElementById('app')!).render(
  <StrictMode>
    <App useObject={useObject} setup={`ai ${__RECIPE_AI_MAJOR__} server · argstream's useObject`} />
  </StrictMode>,
);
