package org.example.textkit;

public final class Capitalize {

    public static String word(String w) {
        return w.substring(0, 1).toUpperCase() + w.substring(1);
    }
}
