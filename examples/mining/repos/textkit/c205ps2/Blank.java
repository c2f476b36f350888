package org.example.textkit;

public final class Blank {

    public static boolean isBlank(String s) {
        return s == null || s.trim().isEmpty();
    }
}
