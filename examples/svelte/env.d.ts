// What a .svelte import is, for TypeScript (svelte-check checks the components themselves).
declare module '*.svelte' {
  import type { Component } from 'svelte';
  const component: Component;
  export default component;
}
