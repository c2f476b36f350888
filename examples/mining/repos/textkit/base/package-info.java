/** Small text helpers, one class per change under review. */
package org.example.textkit;
