import { z } from 'zod';

/** Most characters in one text a text product reads (the request body limit bounds it too). */
export const TEXT_MAX = 100_000;

/** A text to work on: 1 to TEXT_MAX characters. */
export const textField = (description: string) => z.string().min(1).max(TEXT_MAX).describe(description);
