// SPDX-License-Identifier: MIT
// The demo page's module Worker (docs/web.md, "The page"): the simulation side of the page
// (page-sim.mjs) off the page's thread, so that stepping and drawing overlap.
import { serve } from './page-sim.mjs';

serve(self);
