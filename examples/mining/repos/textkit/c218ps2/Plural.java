package org.example.textkit;

public final class Plural {

    public static String of(String noun, int count) {
        return count == 1 ? noun : noun + "s";
    }
}
