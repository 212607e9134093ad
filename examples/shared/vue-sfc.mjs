// @ts-check
/**
 * A minimal esbuild plugin for Vue single-file components, on `@vue/compiler-sfc` (which `vue`
 * itself depends on: no package to add). It compiles `<script setup>` (TypeScript with
 * `lang="ts"`, stripped by esbuild) with its `<template>` inlined as the setup's render function.
 * `<style>` blocks are not handled: the examples keep their CSS in a stylesheet of the page. A
 * real application uses Vite, or a complete plugin (`esbuild-plugin-vue3`, `unplugin-vue`).
 */
import { compileScript, parse } from '@vue/compiler-sfc';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** @returns {import('esbuild').Plugin} */
export function vueSfc() {
  return {
    name: 'vue-sfc',
    setup(build) {
      build.onLoad({ filter: /\.vue$/ }, async (args) => {
        const source = await readFile(args.path, 'utf8');
        const { descriptor, errors } = parse(source, { filename: args.path });
        const problems = errors.map((error) => ({ text: error.message }));
        if (descriptor.styles.length > 0) problems.push({ text: '<style> blocks are not compiled by this plugin: put the CSS in the page' });
        if (descriptor.scriptSetup === null) problems.push({ text: 'only components with <script setup> are compiled by this plugin' });
        if (problems.length > 0) return { errors: problems };
        const id = createHash('sha256').update(args.path).digest('hex').slice(0, 8);
        try {
          const script = compileScript(descriptor, { id, inlineTemplate: true, genDefaultAs: '_sfc_main' });
          return {
            contents: `${script.content}\n_sfc_main.__file = ${JSON.stringify(args.path)};\nexport default _sfc_main;\n`,
            loader: script.lang === 'ts' ? 'ts' : 'js',
            resolveDir: dirname(args.path),
          };
        } catch (error) {
          return { errors: [{ text: error instanceof Error ? error.message : String(error) }] };
        }
      });
    },
  };
}
