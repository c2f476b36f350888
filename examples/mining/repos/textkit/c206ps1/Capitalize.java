package org.example.textkit;

public final class Capitalize {

    public static String word(String w) {
        String head = w.substring(0, 1).toUpperCase();
        return head + w.substring(1);
    }
}
