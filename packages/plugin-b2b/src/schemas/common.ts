import { z } from 'zod';

export const Text = (max: number) => z.string().trim().min(1, 'must not be empty').max(max);
export const OptionalText = (max: number) => z.string().trim().max(max).nullish().transform((s) => (s ? s : null));
export const Email = z.email({ message: 'must be an e-mail address' }).max(320).transform((s) => s.toLowerCase());
