import { z } from 'zod';

/** Heaviest parcel and heaviest rate bracket: 100 t, so weights stay within a 32-bit column. */
export const MAX_WEIGHT_G = 100_000_000;
/** Longest side: 10 m, so that a volumetric weight stays within a 32-bit column too. */
export const MAX_SIDE_CM = 1000;

export const WeightG = z
  .number()
  .int('must be a whole number of grams')
  .min(1, 'must be at least 1 gram')
  .max(MAX_WEIGHT_G, `must be at most ${MAX_WEIGHT_G} grams`);

export const SideCm = z
  .number()
  .int('must be a whole number of centimetres')
  .min(1, 'must be at least 1 cm')
  .max(MAX_SIDE_CM, `must be at most ${MAX_SIDE_CM} cm`);
