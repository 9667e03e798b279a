/** Customers' passwords are hashed as staff members' are: core's scrypt helper. */
export { Passwords } from '@qhatu/core';
